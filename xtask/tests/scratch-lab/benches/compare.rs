fn main() {
    labkit::measure::compare_main(&tiny_lab::LAB);
}
