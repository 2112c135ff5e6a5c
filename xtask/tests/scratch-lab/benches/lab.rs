fn main() {
    labkit::lab_binary::lab_main(&tiny_lab::LAB);
}
