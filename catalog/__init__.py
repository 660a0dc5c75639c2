"""轮藏 Lunzang domain core: models, games, import, search … (never imports Flask)."""
