"""Task generators: tasks made in code (the synthetic chains of primitives, the math word problems) and the
RL pool drawn from them."""
