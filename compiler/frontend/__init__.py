"""From a NineToothed program (arranged tensors + application) to an SSA kernel."""
