"""Slow, plain-Python rule implementations the engines are compared with (after stumpy's naive.py)."""
