// The fixture's implementations have no modules; the types are never used.
labkit::instruction_benches!(tiny_lab::LAB; base => u8, fast => u8);
