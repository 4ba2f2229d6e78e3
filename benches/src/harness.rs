//! A small benchmark harness: peers run interleaved in the same process, each
//! sample is timed over enough iterations to last about two milliseconds, and the
//! median of the rounds is reported. A counting global allocator gives
//! allocations per operation, counted in a call of their own: the timed
//! calls do not pay for the counters.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);
static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);

/// Counts an allocation of `bytes` while counting is on. Off, it is one
/// relaxed load: the two atomic adds (locked instructions, ~20 cycles each)
/// took ~40 ns of the Go message's 160 ns fresh decode, the same for every
/// library, which pulled the ratios of allocating rows towards 1.
#[inline(always)]
fn count(bytes: usize) {
    if COUNTING.load(Relaxed) {
        ALLOCS.fetch_add(1, Relaxed);
        ALLOC_BYTES.fetch_add(bytes as u64, Relaxed);
    }
}

/// Counts allocations (and reallocations) and their bytes, then defers to the
/// system allocator.
pub struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments; the
// counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// One library's operation, ready to run repeatedly.
pub struct Op {
    pub lib: &'static str,
    pub run: Box<dyn FnMut()>,
    /// How many calls it takes to go through all its payloads once.
    pub period: usize,
}

impl Op {
    pub fn new(lib: &'static str, run: impl FnMut() + 'static) -> Self {
        Op {
            lib,
            run: Box::new(run),
            period: 1,
        }
    }

    /// An operation that goes through `period` payloads, one per call.
    pub fn cycling(lib: &'static str, period: usize, run: impl FnMut() + 'static) -> Self {
        Op {
            period,
            ..Op::new(lib, run)
        }
    }

    /// A placeholder for an operation a library cannot do here; not measured.
    pub fn skipped() -> Self {
        Op::new("", || {})
    }
}

/// Items handed out in turn, one per call, for rows that cycle through
/// several payloads (one item: always that one).
pub struct Cycle<T> {
    items: Vec<T>,
    next: usize,
}

impl<T> Cycle<T> {
    pub fn new(items: Vec<T>) -> Self {
        assert!(!items.is_empty(), "a cycle needs an item");
        Cycle { items, next: 0 }
    }

    pub fn period(&self) -> usize {
        self.items.len()
    }

    /// The next item; a compare and a select when there is just one.
    #[inline(always)]
    pub fn next_item(&mut self) -> &mut T {
        let i = self.next;
        self.next = if i + 1 == self.items.len() { 0 } else { i + 1 };
        &mut self.items[i]
    }
}

/// The result for one library on one (workload, operation).
#[derive(Clone, Debug)]
pub struct Measured {
    pub lib: &'static str,
    /// Median nanoseconds per operation.
    pub ns: f64,
    pub allocs: u64,
    pub alloc_bytes: u64,
}

/// How long to measure: `quick` runs each body a few times only (smoke test).
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub rounds: usize,
    pub sample: Duration,
}

impl Settings {
    /// About a minute for the whole suite. This shared machine's speed swings
    /// by up to 2x for seconds at a time; 61 rounds of 2 ms per library and
    /// operation, interleaved, keep a row's ratio within about 0.05 between
    /// runs where 21 rounds of 0.8 ms moved it by up to 0.15.
    pub const FULL: Settings = Settings {
        rounds: 61,
        sample: Duration::from_millis(2),
    };
    pub const QUICK: Settings = Settings {
        rounds: 1,
        sample: Duration::from_nanos(1),
    };
}

/// Measures every op: allocations of one steady-state call, then `rounds`
/// interleaved samples, rotating the order each round. Steady state is after
/// twenty warm-up passes over the op's payloads: a reused message's kept
/// buffers go back to values in an order that may not match at first, so one
/// can still grow in early calls.
pub fn measure(ops: &mut [Op], settings: Settings) -> Vec<Measured> {
    let mut iters = Vec::with_capacity(ops.len());
    let mut allocs = Vec::with_capacity(ops.len());
    for op in ops.iter_mut() {
        for _ in 0..20 * op.period {
            (op.run)();
        }
        let (a, b) = (ALLOCS.load(Relaxed), ALLOC_BYTES.load(Relaxed));
        COUNTING.store(true, Relaxed);
        (op.run)();
        COUNTING.store(false, Relaxed);
        allocs.push((ALLOCS.load(Relaxed) - a, ALLOC_BYTES.load(Relaxed) - b));
        iters.push(calibrate(&mut op.run, settings.sample));
    }
    let mut samples = vec![Vec::with_capacity(settings.rounds); ops.len()];
    for round in 0..settings.rounds {
        for k in 0..ops.len() {
            let i = (k + round) % ops.len();
            let start = Instant::now();
            for _ in 0..iters[i] {
                (ops[i].run)();
            }
            samples[i].push(start.elapsed().as_nanos() as f64 / iters[i] as f64);
        }
    }
    ops.iter()
        .zip(samples)
        .zip(allocs)
        .map(|((op, mut s), (allocs, alloc_bytes))| {
            s.sort_by(f64::total_cmp);
            Measured {
                lib: op.lib,
                ns: s[s.len() / 2],
                allocs,
                alloc_bytes,
            }
        })
        .collect()
}

/// Iterations that make one sample last about `target`.
fn calibrate(run: &mut dyn FnMut(), target: Duration) -> u64 {
    let mut n = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..n {
            run();
        }
        let t = start.elapsed();
        if t >= target / 4 || n >= 1 << 24 {
            let per = t.as_nanos().max(1) as f64 / n as f64;
            return ((target.as_nanos() as f64 / per) as u64).max(1);
        }
        n *= 2;
    }
}

/// Keeps a value alive and opaque to the optimiser.
pub fn sink<T>(v: T) {
    black_box(v);
}
