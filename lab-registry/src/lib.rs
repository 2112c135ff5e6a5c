//! The registry macros each lab uses to turn its one list of implementations into the functions
//! that tests, benches, allocation and footprint runs iterate ([`designs!`], which writes the
//! list's callback macro too, over [`implementation_registry!`]). Kept in its own dependency-free
//! crate: the macro is all a lab's implementation list needs, whatever else of the kit the lab
//! library uses.

/// Generates, for a lab trait with an associated `const NAME: &str`, from a list of
/// `module => Type` entries:
///
/// - `trait ImplementationVisitor { fn visit<D: Trait>(&mut self); }`;
/// - `for_each_implementation(&mut visitor)`, in list order (baseline first);
/// - `implementation_names()`;
/// - `visit_implementation(name, &mut visitor)`, an error listing the valid names when unknown;
/// - `trait ImplementationBuilder { type Output; fn build<D: Trait>(&mut self) -> Self::Output; }`
///   and `build_implementation(name, &mut builder)`: what a lab opens for a case, built from the
///   implementation a name names;
/// - `measured_names()`: the names every measurement iterates, the designs and then the harness
///   floor when the list ends with `; floor module => Type` (a reference implementation that does
///   no work behind the trait: measured like a design, but never visited by
///   `for_each_implementation`, so no correctness suite iterates it).
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
/// assert_eq!(measured_names(), ["fast-path"]);
/// ```
///
/// With a harness floor, which measurements see and the implementation list does not:
///
/// ```
/// trait Design { const NAME: &'static str; }
/// struct Fast;
/// impl Design for Fast { const NAME: &'static str = "fast-path"; }
/// struct Nothing;
/// impl Design for Nothing { const NAME: &'static str = "harness-floor"; }
/// lab_registry::implementation_registry! { trait Design; fast_path => Fast; floor harness_floor => Nothing }
/// assert_eq!(implementation_names(), ["fast-path"]);
/// assert_eq!(measured_names(), ["fast-path", "harness-floor"]);
/// struct Named(Vec<&'static str>);
/// impl ImplementationVisitor for Named {
///     fn visit<D: Design>(&mut self) { self.0.push(D::NAME); }
/// }
/// let mut named = Named(Vec::new());
/// for_each_implementation(&mut named);
/// visit_implementation("harness-floor", &mut named).unwrap();
/// assert_eq!(named.0, ["fast-path", "harness-floor"]);
/// struct Name;
/// impl ImplementationBuilder for Name {
///     type Output = &'static str;
///     fn build<D: Design>(&mut self) -> &'static str { D::NAME }
/// }
/// assert_eq!(build_implementation("fast-path", &mut Name), Ok("fast-path"));
/// let unknown = build_implementation("slow", &mut Name).unwrap_err();
/// assert_eq!(unknown, "unknown implementation `slow`; valid: fast-path, harness-floor");
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
    (trait $lab_trait:ident; $($module:ident => $ty:path),* $(,)?
        $(; floor $floor_module:ident => $floor:path)?) => {
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
        $(
            const _: () = assert!(
                $crate::names_module(stringify!($floor_module), <$floor as $lab_trait>::NAME),
                concat!(
                    "registry module `",
                    stringify!($floor_module),
                    "` is not named like its implementation's NAME (with _ for -)"
                )
            );
        )?

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

        /// What every measurement iterates: the implementations, then the harness floor if the
        /// lab has one.
        pub fn measured_names() -> Vec<&'static str> {
            vec![$(<$ty as $lab_trait>::NAME,)* $(<$floor as $lab_trait>::NAME)?]
        }

        /// Builds something from one implementation type: what a lab opens for a case.
        pub trait ImplementationBuilder {
            type Output;
            fn build<D: $lab_trait>(&mut self) -> Self::Output;
        }

        /// What `builder` builds from the one implementation (or the harness floor) called
        /// `name`; an unknown name is an error that lists the valid ones.
        pub fn build_implementation<B: ImplementationBuilder>(
            name: &str,
            builder: &mut B,
        ) -> Result<B::Output, String> {
            $(
                if <$ty as $lab_trait>::NAME == name {
                    return Ok(builder.build::<$ty>());
                }
            )*
            $(
                if <$floor as $lab_trait>::NAME == name {
                    return Ok(builder.build::<$floor>());
                }
            )?
            Err(format!(
                "unknown implementation `{name}`; valid: {}",
                measured_names().join(", ")
            ))
        }

        /// Visits the one implementation (or the harness floor) called `name`; an unknown name is
        /// an error that lists the valid ones.
        pub fn visit_implementation(
            name: &str,
            visitor: &mut impl ImplementationVisitor,
        ) -> Result<(), String> {
            struct Visit<'a, V>(&'a mut V);
            impl<V: ImplementationVisitor> ImplementationBuilder for Visit<'_, V> {
                type Output = ();
                fn build<D: $lab_trait>(&mut self) {
                    self.0.visit::<D>()
                }
            }
            build_implementation(name, &mut Visit(visitor))
        }
    };
}

/// A lab's one list of designs, stated once in its `lib.rs`: `designs! { crate my_lab; trait
/// Design; module => Type, … }` (each `Type` in `implementations::module`, the baseline first, an
/// optional `; floor module => Type` last) gives the lab
///
/// - everything [`implementation_registry!`] generates, and
/// - `with_implementations!(callback)`, exported: calls `callback! { module => ::my_lab::…::Type,
///   … }` with the same list, for what needs the types at macro level (the gungraun benches, the
///   conformance tests).
///
/// The list's paths name the lab crate, so its crate root says `extern crate self as my_lab;`
/// (a macro may not write that line itself), and the lab's own modules call
/// `with_implementations!` by name from below the `designs!` line, not by path (a macro-written
/// export is not reachable by path inside its crate).
#[macro_export]
macro_rules! designs {
    (crate $krate:ident; trait $lab_trait:ident; $($module:ident => $ty:ident),* $(,)?
        $(; floor $floor_module:ident => $floor:ident)?) => {
        $crate::designs! { @with ($) $krate $lab_trait; $($module => $ty),* $(; $floor_module => $floor)? }
    };
    (@with ($d:tt) $krate:ident $lab_trait:ident; $($module:ident => $ty:ident),*
        $(; $floor_module:ident => $floor:ident)?) => {
        /// Calls `$callback!` with every design as `module => path`, the baseline first, then
        /// the harness floor (if any) after a `; floor`.
        #[macro_export]
        macro_rules! with_implementations {
            ($d callback:ident) => {
                $d callback! {
                    $($module => ::$krate::implementations::$module::$ty,)*
                    $(; floor $floor_module => ::$krate::implementations::$floor_module::$floor)?
                }
            };
        }

        $crate::implementation_registry! {
            trait $lab_trait;
            $($module => ::$krate::implementations::$module::$ty),*
            $(; floor $floor_module => ::$krate::implementations::$floor_module::$floor)?
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
