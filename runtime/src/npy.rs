//! `.npy` reading and writing (to be written).
