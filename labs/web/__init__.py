"""The web layer: views, forms, presenters, comparisons and exports."""
