//! How the driver reads this lab without linking it: its description, derived records and
//! report; see `labkit::lab_binary`.

fn main() {
    labkit::lab_binary::lab_main(&coalesce_lab::lab::LAB);
}
