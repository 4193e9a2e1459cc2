"""Chart builders: turn a lab's result into Plotly figures (plain JSON-ready dicts)."""
