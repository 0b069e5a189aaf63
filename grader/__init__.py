"""backprop-course toolkit."""
