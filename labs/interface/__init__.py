"""What a runner declares and is handed: `params` (a lab's parameters), `figures` (its
summary figures), `live` (its live view) and `progress` (how it reports and stops).

Below the runners and charts, so they and the catalogue all read it without an arrow
running up the layers; Django-free.
"""
