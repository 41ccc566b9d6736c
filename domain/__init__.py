"""The product's domain vocabulary shared by every layer: no Django, no DRF (see errors)."""
