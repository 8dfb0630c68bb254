"""``arena serve``: its server through HTTP, and its page in a real browser."""
