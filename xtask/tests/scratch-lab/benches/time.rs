fn main() {
    labkit::measure::pass_main(&tiny_lab::LAB);
}
