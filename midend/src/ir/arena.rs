//! Arenas and typed handles, the storage model of the whole IR.
//!
//! A [`Handle<T>`] is a `NonZeroU32` index into an [`Arena<T>`]; it is `Copy`, compares by index
//! and carries the element type only as `PhantomData`, so a value handle can never index the op
//! arena by mistake. Nothing is ever removed from an arena: passes unlink ops from blocks instead,
//! and the printer walks blocks, never arenas. [`SecondaryMap`] attaches side-table facts (spans,
//! analysis results) to handles without touching the IR nodes (STYLE rules 4-6).

use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroU32;

/// A typed index into an [`Arena`].
pub struct Handle<T> {
    index: NonZeroU32,
    marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// Builds a handle from a zero-based index.
    pub fn from_index(index: usize) -> Self {
        let one_based = u32::try_from(index + 1).expect("arena larger than u32::MAX elements");
        Handle { index: NonZeroU32::new(one_based).unwrap(), marker: PhantomData }
    }

    /// The zero-based index of this handle in its arena.
    pub fn index(self) -> usize {
        (self.index.get() - 1) as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index())
    }
}

/// Append-only storage addressed by [`Handle`]s.
#[derive(Clone, Debug)]
pub struct Arena<T> {
    items: Vec<T>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { items: Vec::new() }
    }
}

impl<T> Arena<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `item` and returns its handle.
    pub fn append(&mut self, item: T) -> Handle<T> {
        self.items.push(item);
        Handle::from_index(self.items.len() - 1)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Drops every element appended after the arena had `len` elements. Used to discard
    /// speculative lowering (the frontend's dry run of a loop body); handles into the dropped
    /// part must not be used afterwards.
    pub fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }

    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.items.iter().enumerate().map(|(i, item)| (Handle::from_index(i), item))
    }
}

impl<T> std::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    fn index(&self, handle: Handle<T>) -> &T {
        &self.items[handle.index()]
    }
}

impl<T> std::ops::IndexMut<Handle<T>> for Arena<T> {
    fn index_mut(&mut self, handle: Handle<T>) -> &mut T {
        &mut self.items[handle.index()]
    }
}

/// A side table from handles to facts, with a default for handles never set.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K, V: Clone> {
    items: Vec<V>,
    default: V,
    marker: PhantomData<fn() -> K>,
}

impl<K, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::with_default(V::default())
    }
}

impl<K, V: Clone> SecondaryMap<K, V> {
    pub fn with_default(default: V) -> Self {
        SecondaryMap { items: Vec::new(), default, marker: PhantomData }
    }

    pub fn get(&self, handle: Handle<K>) -> &V {
        self.items.get(handle.index()).unwrap_or(&self.default)
    }

    pub fn set(&mut self, handle: Handle<K>, value: V) {
        let i = handle.index();
        if i >= self.items.len() {
            self.items.resize(i + 1, self.default.clone());
        }
        self.items[i] = value;
    }

    pub fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }
}
