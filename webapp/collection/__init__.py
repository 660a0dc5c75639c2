"""The collection area: items, imports and exports, wants and haves (issue 6)."""
