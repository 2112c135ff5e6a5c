//! The registry macro each lab uses to turn its one list of implementations into the functions
//! that tests, benches, allocation and footprint runs iterate. Kept in its own dependency-free
//! crate: the macro is all a lab's implementation list needs, whatever else of the kit the lab
//! library uses.

/// Generates, for a lab trait with an associated `const NAME: &str`, from a list of
/// `module => Type` entries:
///
/// - `trait ImplementationVisitor { fn visit<D: Trait>(&mut self); }`;
/// - `for_each_implementation(&mut visitor)`, in list order (baseline first);
/// - `implementation_names()`;
/// - `visit_implementation(name, &mut visitor)`, an error listing the valid names when unknown.
///
/// Each module must be named like its implementation's `NAME`, with `_` for `-`, or the list does
/// not compile:
///
/// ```
/// trait Design { const NAME: &'static str; }
/// struct Fast;
/// impl Design for Fast { const NAME: &'static str = "fast-path"; }
/// lab_registry::implementation_registry! { trait Design; fast_path => Fast }
/// assert_eq!(implementation_names(), ["fast-path"]);
/// ```
///
/// ```compile_fail
/// trait Design { const NAME: &'static str; }
/// struct Fast;
/// impl Design for Fast { const NAME: &'static str = "fast-path"; }
/// lab_registry::implementation_registry! { trait Design; quick => Fast }
/// ```
#[macro_export]
macro_rules! implementation_registry {
    (trait $lab_trait:ident; $($module:ident => $ty:path),* $(,)?) => {
        $(
            const _: () = assert!(
                $crate::names_module(stringify!($module), <$ty as $lab_trait>::NAME),
                concat!(
                    "registry module `",
                    stringify!($module),
                    "` is not named like its implementation's NAME (with _ for -)"
                )
            );
        )*

        /// Something to do with each implementation type.
        pub trait ImplementationVisitor {
            fn visit<D: $lab_trait>(&mut self);
        }

        /// Visits every implementation, the baseline first.
        pub fn for_each_implementation(visitor: &mut impl ImplementationVisitor) {
            $(visitor.visit::<$ty>();)*
        }

        /// Names of all implementations, baseline first.
        pub fn implementation_names() -> Vec<&'static str> {
            vec![$(<$ty as $lab_trait>::NAME),*]
        }

        /// Visits the one implementation called `name`; an unknown name is an error that lists
        /// the valid ones.
        pub fn visit_implementation(
            name: &str,
            visitor: &mut impl ImplementationVisitor,
        ) -> Result<(), String> {
            $(
                if <$ty as $lab_trait>::NAME == name {
                    visitor.visit::<$ty>();
                    return Ok(());
                }
            )*
            Err(format!(
                "unknown implementation `{name}`; valid: {}",
                implementation_names().join(", ")
            ))
        }
    };
}

/// Whether `module` is `name` with `_` for `-`: how a registry module is named after its
/// implementation (checked at compile time by [`implementation_registry!`]).
pub const fn names_module(module: &str, name: &str) -> bool {
    let (module, name) = (module.as_bytes(), name.as_bytes());
    if module.len() != name.len() {
        return false;
    }
    let mut i = 0;
    while i < module.len() {
        let expected = if name[i] == b'-' { b'_' } else { name[i] };
        if module[i] != expected {
            return false;
        }
        i += 1;
    }
    true
}
