//! Repeat launches replayed as one-node CUDA graphs.
//!
//! Why: on the H100 hosts measured (Firecracker virtual machines, driver 580), `cuLaunchKernel`
//! takes 2.8 to 4.9 microseconds of host time, whatever the stream, the parameters or the queue
//! depth ([`super::floor`]), and that is most of a launch from Python. Replaying an
//! instantiated graph of the same one launch takes about half as long (from C, in one process:
//! 3.5 to 3.8 microseconds a launch, 1.9 to 2.1 a replay, 2.5 when its parameters changed since
//! the last replay (`cuGraphExecKernelNodeSetParams`), 3.7 to 4.4 when its grid changed). So
//! [`super::CudaDevice::launch_async`] launches a kernel over one grid on one stream directly
//! until that pair has been launched [`HOT_AFTER`] times, and from then on replays a graph
//! instantiated for the pair (instantiating takes 50 to 100 microseconds), setting its parameters
//! again only when they differ from the last ones set.
//!
//! What stays as it was: a replay is ordered on its stream as a launch is, and replays of one
//! graph are ordered among themselves (they are on one stream anyway); the parameter values are
//! copied by the driver when set, so a replay in flight keeps its own. A stream being captured
//! into a graph (`torch.cuda.graph`) gets direct launches: the driver refuses a graph launch there
//! and the refusal invalidates the capture.
//!
//! Bounds: a kernel keeps at most [`MAX_GRAPHS`] graphs (the least recently replayed is
//! destroyed to make room: the driver frees one still in flight when it completes) and counts
//! launches for at most [`MAX_COUNTED`] pairs (all counts are forgotten when that fills: a kernel
//! whose grids keep changing never instantiates anything). `TRIDENT_CUDA_GRAPHS=0` turns the
//! replays off ([`super::GRAPHS_ENV`]).

use std::ffi::c_void;
use std::rc::Rc;

use super::driver::{self, Context, DriverError, Function, KernelGraph};
use super::Params;

/// Direct launches of a (grid, stream) pair before it is replayed from a graph.
pub const HOT_AFTER: u32 = 8;
/// Graphs one kernel keeps.
pub const MAX_GRAPHS: usize = 4;
/// (grid, stream) pairs whose launches one kernel counts.
pub const MAX_COUNTED: usize = 16;

/// What a graph replays: a grid (of CTAs) on a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub grid: [u32; 3],
    pub stream: u64,
}

/// What to do with one launch ([`Hotness::decide`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Launch directly.
    Direct,
    /// Replay graph `index`.
    Replay(usize),
    /// Instantiate a graph for the target, to go in slot `index` ([`Hotness::install`]): a new
    /// slot when it equals the number of graphs, else the least recently replayed one's.
    Instantiate(usize),
}

/// Which targets are hot, and which graph slot holds each: the bookkeeping, without the driver.
#[derive(Debug, Default)]
pub struct Hotness {
    /// Direct launches per target not yet hot.
    counts: Vec<(Target, u32)>,
    /// Per graph slot, its target and when it was last replayed (a launch counter).
    slots: Vec<(Target, u64)>,
    clock: u64,
}

impl Hotness {
    /// The decision for one launch of `target` (counted). A target that is hot counts again from
    /// zero unless its graph is installed.
    pub fn decide(&mut self, target: Target) -> Decision {
        self.clock += 1;
        if let Some(index) = self.slots.iter().position(|(slot, _)| *slot == target) {
            self.slots[index].1 = self.clock;
            return Decision::Replay(index);
        }
        let count = match self.counts.iter_mut().find(|(counted, _)| *counted == target) {
            Some((_, count)) => count,
            None => {
                if self.counts.len() == MAX_COUNTED {
                    self.counts.clear();
                }
                self.counts.push((target, 0));
                &mut self.counts.last_mut().expect("just pushed").1
            }
        };
        *count += 1;
        if *count <= HOT_AFTER {
            return Decision::Direct;
        }
        self.counts.retain(|(counted, _)| *counted != target);
        let oldest = self.slots.iter().enumerate().min_by_key(|(_, (_, used))| *used).map(|(index, _)| index);
        match (self.slots.len() < MAX_GRAPHS, oldest) {
            (false, Some(oldest)) => Decision::Instantiate(oldest),
            _ => Decision::Instantiate(self.slots.len()),
        }
    }

    /// Puts `target`'s graph in slot `index` (from its [`Decision::Instantiate`]).
    pub fn install(&mut self, index: usize, target: Target) {
        let slot = (target, self.clock);
        match index == self.slots.len() {
            true => self.slots.push(slot),
            false => self.slots[index] = slot,
        }
    }
}

/// One kernel's graphs, per [`Hotness`] slot, each with the parameters it was last given.
#[derive(Debug, Default)]
pub struct LaunchGraphs {
    hotness: Hotness,
    graphs: Vec<(KernelGraph, Params)>,
    /// Set when the driver refused to make a graph of this kernel or to set its parameters: it is
    /// launched directly.
    refused: bool,
}

/// One launch, as [`LaunchGraphs::launch`] takes it.
pub struct Launch<'a> {
    pub function: Function,
    pub target: Target,
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub params: &'a Params,
    /// Pointers into `params`, one per kernel parameter.
    pub pointers: &'a mut [*mut c_void],
}

impl LaunchGraphs {
    /// How many graphs the kernel keeps.
    pub fn count(&self) -> usize {
        self.graphs.len()
    }

    /// Enqueues `launch` as a graph replay when its target is hot: `Ok(true)`; `Ok(false)` when
    /// the caller is to launch it directly (also from now on, where the driver would not make a
    /// graph or set its parameters). An error is the driver's refusal of the replay itself.
    ///
    /// # Safety
    /// As [`Function::launch_on`] for `launch`; `launch.function`'s module outlives `self`.
    pub unsafe fn launch(&mut self, context: &Rc<Context>, launch: Launch<'_>) -> Result<bool, DriverError> {
        if self.refused {
            return Ok(false);
        }
        let index = match self.hotness.decide(launch.target) {
            Decision::Direct => return Ok(false),
            // A later launch outside the capture replays (or instantiates) it.
            Decision::Replay(_) | Decision::Instantiate(_)
                if driver::stream_is_capturing(launch.target.stream) =>
            {
                return Ok(false);
            }
            Decision::Replay(index) => {
                let (graph, params) = &mut self.graphs[index];
                if *params != *launch.params {
                    // SAFETY: the caller's promises; the graph was made for this function, grid,
                    // block and shared memory.
                    let set = unsafe {
                        graph.set_params(
                            launch.function,
                            launch.target.grid,
                            launch.block,
                            launch.shared_bytes,
                            launch.pointers,
                        )
                    };
                    // As where a graph cannot be made: launch directly from now on.
                    if set.is_err() {
                        self.refused = true;
                        return Ok(false);
                    }
                    params.clone_from(launch.params);
                }
                index
            }
            Decision::Instantiate(index) => {
                // SAFETY: the caller's promises.
                let made = unsafe {
                    KernelGraph::new(
                        context,
                        launch.function,
                        launch.target.grid,
                        launch.block,
                        launch.shared_bytes,
                        launch.pointers,
                    )
                };
                // A graph is only cheaper: where the driver will not make one, launch directly
                // (the launches themselves succeeded, HOT_AFTER times).
                let Ok(graph) = made else {
                    self.refused = true;
                    return Ok(false);
                };
                self.hotness.install(index, launch.target);
                let entry = (graph, launch.params.clone());
                match index == self.graphs.len() {
                    true => self.graphs.push(entry),
                    false => self.graphs[index] = entry,
                }
                index
            }
        };
        // SAFETY: the caller's promises for the stream and the addresses among the parameters.
        unsafe { self.graphs[index].0.launch(launch.target.stream) }?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(x: u32, stream: u64) -> Target {
        Target { grid: [x, 1, 1], stream }
    }

    #[test]
    fn a_target_is_replayed_after_its_direct_launches() {
        let mut hotness = Hotness::default();
        for _ in 0..HOT_AFTER {
            assert_eq!(hotness.decide(target(4, 0)), Decision::Direct);
        }
        assert_eq!(hotness.decide(target(4, 0)), Decision::Instantiate(0));
        hotness.install(0, target(4, 0));
        assert_eq!(hotness.decide(target(4, 0)), Decision::Replay(0));
        // Another stream or grid is another target.
        assert_eq!(hotness.decide(target(4, 7)), Decision::Direct);
        assert_eq!(hotness.decide(target(5, 0)), Decision::Direct);
        assert_eq!(hotness.decide(target(4, 0)), Decision::Replay(0));
    }

    #[test]
    fn the_least_recently_replayed_graph_makes_room() {
        let mut hotness = Hotness::default();
        let heat = |hotness: &mut Hotness, x: u32| {
            (0..HOT_AFTER).for_each(|_| assert_eq!(hotness.decide(target(x, 0)), Decision::Direct));
            let decision = hotness.decide(target(x, 0));
            if let Decision::Instantiate(index) = decision {
                hotness.install(index, target(x, 0));
            }
            decision
        };
        for x in 0..MAX_GRAPHS as u32 {
            assert_eq!(heat(&mut hotness, x), Decision::Instantiate(x as usize));
        }
        // Slot 0 replayed last; slot 1 is now the oldest.
        assert_eq!(hotness.decide(target(0, 0)), Decision::Replay(0));
        assert_eq!(heat(&mut hotness, 100), Decision::Instantiate(1));
        assert_eq!(hotness.decide(target(100, 0)), Decision::Replay(1));
        // The target it replaced starts counting again.
        assert_eq!(hotness.decide(target(1, 0)), Decision::Direct);
    }

    #[test]
    fn changing_grids_never_instantiate() {
        let mut hotness = Hotness::default();
        for round in 0..HOT_AFTER * 4 {
            for x in 0..=MAX_COUNTED as u32 {
                assert_eq!(hotness.decide(target(x, 0)), Decision::Direct, "round {round}, grid {x}");
            }
        }
    }

    #[test]
    fn a_graph_not_installed_leaves_its_slot_as_it_was() {
        let mut hotness = Hotness::default();
        let heat = |hotness: &mut Hotness, x: u32| {
            (0..HOT_AFTER).for_each(|_| assert_eq!(hotness.decide(target(x, 0)), Decision::Direct));
            hotness.decide(target(x, 0))
        };
        assert_eq!(heat(&mut hotness, 3), Decision::Instantiate(0));
        // Not installed (a capture, or the driver refused): counted again from zero.
        assert_eq!(heat(&mut hotness, 3), Decision::Instantiate(0));
        hotness.install(0, target(3, 0));
        for x in 10..10 + MAX_GRAPHS as u32 - 1 {
            let index = (x - 9) as usize;
            assert_eq!(heat(&mut hotness, x), Decision::Instantiate(index));
            hotness.install(index, target(x, 0));
        }
        // Full: the oldest slot (0) is offered, and kept while nothing is installed in it.
        assert_eq!(heat(&mut hotness, 50), Decision::Instantiate(0));
        assert_eq!(hotness.decide(target(3, 0)), Decision::Replay(0));
    }
}
