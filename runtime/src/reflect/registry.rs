//! The process's registry: one pool that the text format, JSON's `Any`
//! and anything else resolving types by name at run time read. Generated
//! messages with descriptors register their package's files (and those it
//! imports) on first use; other sets are registered by hand.

use std::collections::HashSet;
use std::string::{String, ToString};
use std::sync::{LazyLock, PoisonError, RwLock};
use std::vec::Vec;

use super::{DescriptorPool, PoolError};
use crate::Described;

struct Registry {
    pool: DescriptorPool,
    /// Addresses of the registered sets (generated code's constants), so
    /// registering one again costs a lookup.
    sets: HashSet<usize>,
    /// Why generated packages' sets did not link (the first few), for the
    /// errors of the lookups that then fail: their registration returns
    /// nothing.
    refused: Vec<String>,
}

/// How many refusals the registry remembers.
const REFUSALS_KEPT: usize = 4;

/// The well-known types first, then each registered set.
static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(|| {
    let mut pool = DescriptorPool::new();
    let _ = pool.add_new_files(&[crate::well_known::FILE_DESCRIPTOR_SET]);
    let sets = HashSet::from([crate::well_known::FILE_DESCRIPTOR_SET.as_ptr() as usize]);
    RwLock::new(Registry {
        pool,
        sets,
        refused: Vec::new(),
    })
});

/// The registry's pool, holding `M`'s descriptors and those of the
/// packages it imports.
pub(crate) fn described<M: Described>() -> DescriptorPool {
    package(M::FILE_DESCRIPTOR_SET, M::IMPORTED_DESCRIPTOR_SETS)
}

/// The registry's pool, holding a generated package's descriptor set and
/// the sets of the packages it imports.
fn package(set: &'static [u8], imports: &[&'static [u8]]) -> DescriptorPool {
    {
        let registry = REGISTRY.read().unwrap_or_else(PoisonError::into_inner);
        if registry.sets.contains(&(set.as_ptr() as usize)) {
            return registry.pool.clone();
        }
    }
    let mut registry = REGISTRY.write().unwrap_or_else(PoisonError::into_inner);
    let sets: Vec<&[u8]> = imports.iter().copied().chain([set]).collect();
    // A set that does not link (it conflicts with one registered before,
    // or an import is missing) leaves the pool as it was: its types are
    // then not found by name, and the errors of those lookups say why.
    if let Err(e) = registry.pool.add_new_files(&sets) {
        if registry.refused.len() < REFUSALS_KEPT {
            registry.refused.push(e.to_string());
        }
    }
    registry.sets.insert(set.as_ptr() as usize);
    registry.pool.clone()
}

/// Why registrations of generated packages failed, for an error that says
/// a type is not known: empty if none did.
#[cfg(any(feature = "json", feature = "text"))]
pub(crate) fn refusals() -> String {
    let registry = REGISTRY.read().unwrap_or_else(PoisonError::into_inner);
    if registry.refused.is_empty() {
        return String::new();
    }
    std::format!(" (the registry refused a package: {})", registry.refused.join("; "))
}

/// Adds the files of an encoded `FileDescriptorSet` that the registry does
/// not hold yet (by name).
pub(crate) fn register_set(set: &'static [u8]) -> Result<(), PoolError> {
    let mut registry = REGISTRY.write().unwrap_or_else(PoisonError::into_inner);
    if registry.sets.contains(&(set.as_ptr() as usize)) {
        return Ok(());
    }
    registry.pool.add_new_files(&[set])?;
    registry.sets.insert(set.as_ptr() as usize);
    Ok(())
}

impl DescriptorPool {
    /// The process's registry: the well-known types, every generated type
    /// with descriptors used so far with the text format or reflection,
    /// every package registered with its `register_json_types()` or
    /// [`DescriptorPool::register_package`], and every set registered with
    /// [`DescriptorPool::register_global`]. JSON and the text format find
    /// the types `Any` holds and the extensions they show here. A snapshot:
    /// files registered later are not in it.
    #[must_use]
    pub fn global() -> DescriptorPool {
        REGISTRY.read().unwrap_or_else(PoisonError::into_inner).pool.clone()
    }

    /// Adds the files of an encoded `FileDescriptorSet` to the process's
    /// registry (files it holds already, by name, are skipped), so the text
    /// format and JSON resolve their types by name, in `Any` values and
    /// extensions.
    ///
    /// # Errors
    /// As [`DescriptorPool::add_file_descriptor_set`].
    pub fn register_global(set: &'static [u8]) -> Result<(), PoolError> {
        register_set(set)
    }

    /// Adds `M`'s descriptors to the process's registry, with those of the
    /// packages its package imports.
    pub fn register_described<M: Described>() {
        described::<M>();
    }

    /// Adds a generated package's descriptors to the process's registry:
    /// its `FILE_DESCRIPTOR_SET` and its `IMPORTED_DESCRIPTOR_SETS`. This is
    /// what a package's generated `register_json_types()` calls; it serves
    /// packages that declare only extensions, which have no type for
    /// [`DescriptorPool::register_described`]. Files the registry holds
    /// already (by name) are skipped; sets that do not link with it (a name
    /// declared twice) leave it as it was.
    pub fn register_package(set: &'static [u8], imports: &[&'static [u8]]) {
        package(set, imports);
    }
}
