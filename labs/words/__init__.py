"""How the models' results are said to a student, while a page renders.

Below the runners and charts (a headline and a chart say the same words as the report);
Django-free, words through `labs.text`.
"""
