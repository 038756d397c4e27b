//! Device memory layout of a dispatch.
//!
//! Only buffers that a descriptor binds to a resource the kernel uses go into
//! device memory (expected-value buffers and unused descriptors stay on the
//! host). A descriptor covers `ArraySize` consecutive registers from its own,
//! one per buffer of its array; a kernel resource (an array element among
//! them) takes the buffer its register names. Buffers are placed in the order
//! of the YAML `Buffers` list (the elements of an array in order), from byte
//! address 0, each at a multiple of [`BUFFER_ALIGN`] (16) bytes. After each
//! placed buffer lies a zero *guard* as large as the buffer (at least
//! [`GUARD_MIN`] bytes): a read that runs off the end of a buffer, as D3D code
//! may (its robust buffer access gives 0), reads zeros there instead of the next
//! buffer, and a write there is found after the run ([`MemoryLayout::guard_writes`]).
//! UAV counters (`HasCounter`) follow, one u32 per buffer, then the kernel's
//! constant block, then its scratch buffer for spill slots in device memory
//! (zero-filled, one block per workgroup of the dispatch; its guard is the
//! last buffer's when nothing else comes between). Device memory ends exactly at the end of the last thing
//! placed, so an access past it faults. A buffer bound to several resources is
//! placed once. Resource `i` of the kernel gets its buffer's byte address in
//! register `interface.resources[i].register` (design.md §7), its size and
//! counter address in theirs.

use super::pipeline::{DescriptorKind, Pipeline};
use super::RunError;
use crate::interface::KernelInterface;

/// Alignment of every buffer in device memory, bytes.
pub const BUFFER_ALIGN: u32 = 16;

/// Smallest zero guard between two buffers, bytes (see the module comment).
pub const GUARD_MIN: u64 = 256;

/// Where the next placement starts after something ending at `end` whose size is
/// `size`: aligned, and past a guard when `guard` (another buffer precedes).
fn next_address(end: u64, size: u64, guard: bool) -> u64 {
    let align = |a: u64| a.div_ceil(BUFFER_ALIGN as u64) * BUFFER_ALIGN as u64;
    if guard {
        align(end) + align(size).max(GUARD_MIN)
    } else {
        align(end)
    }
}

/// Where one buffer (one element of a resource array) lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Index into `Pipeline::buffers`.
    pub buffer: usize,
    /// Which buffer of the array (0 for a single buffer).
    pub element: u32,
    pub address: u32,
    pub size: u32,
}

/// Where the UAV counter of one buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterPlacement {
    pub buffer: usize,
    pub element: u32,
    pub address: u32,
}

/// Device memory layout and launch arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLayout {
    pub placements: Vec<Placement>,
    /// Counters of the buffers whose descriptor has `HasCounter` (all of them, used
    /// or not: the offloader reports every one).
    pub counters: Vec<CounterPlacement>,
    /// Device memory size, bytes.
    pub size: u32,
    /// Initial registers: (register, value): addresses, sizes and counter addresses.
    pub args: Vec<(u32, u32)>,
    /// Things worth telling the user that do not stop the run.
    pub warnings: Vec<String>,
    /// The kernel's constant block: its address and bytes.
    pub constants: Option<(u32, Vec<u8>)>,
    /// The kernel's scratch buffer for spill slots: its address and size.
    pub scratch: Option<(u32, u32)>,
}

impl MemoryLayout {
    pub fn placement(&self, buffer: usize) -> Option<&Placement> {
        self.placements.iter().find(|p| p.buffer == buffer)
    }

    /// The guards that the run wrote (a buffer's guard is the memory from its end
    /// to the next placement): for each, the buffer and the first written byte's
    /// offset past the buffer's end, in placement order.
    pub fn guard_writes(&self, mem: &wavesim::Memory) -> Vec<(usize, u32)> {
        let mut starts: Vec<u32> = self.placements.iter().skip(1).map(|pl| pl.address).collect();
        starts.extend(self.counters.first().map(|c| c.address));
        starts.extend(self.constants.as_ref().map(|(at, _)| *at));
        starts.extend(self.scratch.map(|(at, _)| at));
        self.placements
            .iter()
            .zip(starts)
            .filter_map(|(pl, next)| {
                let end = pl.address + pl.size;
                let guard = mem.bytes.get(end as usize..next as usize)?;
                let k = guard.iter().position(|b| *b != 0)?;
                Some((pl.buffer, k as u32))
            })
            .collect()
    }

    /// One line per placed buffer: `Name at 0x0..0x40` (`Name[1] at ...` for an array element).
    pub fn describe(&self, p: &Pipeline) -> String {
        self.placements
            .iter()
            .map(|pl| {
                let b = &p.buffers[pl.buffer];
                let name = if b.array_size > 1 { format!("{}[{}]", b.name, pl.element) } else { b.name.clone() };
                format!("{name} at {:#x}..{:#x}", pl.address, pl.address + pl.size)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `p` with the contents of every placed buffer (array element) and counter as
    /// `read(address, size)` gives them after a run.
    pub fn read_back(&self, p: &Pipeline, mut read: impl FnMut(u32, usize) -> Result<Vec<u8>, String>) -> Result<Pipeline, String> {
        self.read_back_with(p, |at, dst| {
            let bytes = read(at, dst.len())?;
            dst.copy_from_slice(bytes.get(..dst.len()).ok_or("short read")?);
            Ok(())
        })
    }

    /// [`MemoryLayout::read_back`] from the simulator's memory, copied straight
    /// into the buffers (no copy of a buffer in between).
    pub fn read_back_from(&self, p: &Pipeline, mem: &wavesim::Memory) -> Result<Pipeline, String> {
        self.read_back_with(p, |at, dst| {
            dst.copy_from_slice(mem.read(at, dst.len())?);
            Ok(())
        })
    }

    /// [`MemoryLayout::read_back`] with `copy(address, destination)` filling each
    /// placed buffer and counter. A placed buffer is not copied from `p` first
    /// (it may be large, and every byte of it is read back).
    fn read_back_with(&self, p: &Pipeline, mut copy: impl FnMut(u32, &mut [u8]) -> Result<(), String>) -> Result<Pipeline, String> {
        let placed_whole = |i: usize, b: &super::pipeline::Buffer| {
            let mine = || self.placements.iter().filter(|pl| pl.buffer == i);
            mine().map(|pl| pl.size as usize).sum::<usize>() == b.data.len() && mine().count() == b.array_size as usize
        };
        let buffers = p
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| {
                if placed_whole(i, b) {
                    let mut c = b.clone_without_data();
                    c.data.resize(b.data.len(), 0);
                    c
                } else {
                    b.clone()
                }
            })
            .collect();
        let mut out = Pipeline {
            shader: p.shader.clone(),
            dispatch: p.dispatch,
            dispatch_style: p.dispatch_style,
            buffers,
            results: p.results.clone(),
            descriptor_sets: p.descriptor_sets.clone(),
        };
        for pl in &self.placements {
            let b = &mut out.buffers[pl.buffer];
            let at = pl.element as usize * b.element_bytes();
            let dst = &mut b.data[at..at + pl.size as usize];
            copy(pl.address, dst).map_err(|e| format!("reading back `{}`: {e}", p.buffers[pl.buffer].name))?;
        }
        for c in &self.counters {
            let mut bytes = [0u8; 4];
            copy(c.address, &mut bytes).map_err(|e| format!("reading back the counter of `{}`: {e}", p.buffers[c.buffer].name))?;
            let b = &mut out.buffers[c.buffer];
            b.counters.resize(b.array_size as usize, 0);
            b.counters[c.element as usize] = u32::from_le_bytes(bytes);
        }
        Ok(out)
    }

    /// Device memory holding the placed buffers (counters start at 0).
    pub fn memory(&self, p: &Pipeline) -> wavesim::Memory {
        let mut mem = wavesim::Memory::new(self.size as usize);
        for pl in &self.placements {
            let data = p.buffers[pl.buffer].element(pl.element);
            mem.bytes[pl.address as usize..pl.address as usize + data.len()].copy_from_slice(data);
        }
        if let Some((at, bytes)) = &self.constants {
            mem.bytes[*at as usize..*at as usize + bytes.len()].copy_from_slice(bytes);
        }
        mem
    }
}

/// Binds the kernel's resources to the pipeline's buffers and lays them out.
pub fn layout(p: &Pipeline, iface: &KernelInterface) -> Result<MemoryLayout, RunError> {
    let mut warnings = Vec::new();
    // Resource -> (descriptor, buffer, element).
    let mut bound = Vec::new();
    for r in &iface.resources {
        let found = p.descriptors().find_map(|d| d.element_at(r.binding, p.buffers[d.buffer].array_size).map(|k| (d, k)));
        let Some((d, element)) = found else {
            return Err(RunError::invalid(format!(
                "kernel resource `{}` ({} at register {}) is not bound: no DescriptorSets resource has Kind {} with DirectXBinding {{ Register: {}, Space: {} }}",
                r.name,
                r.kind.name(),
                r.binding,
                r.kind.view_kind().name(),
                r.binding.index,
                r.binding.space
            )));
        };
        let buf = &p.buffers[d.buffer];
        if d.kind.name() != r.kind.view_kind().name() {
            return Err(RunError::invalid(format!(
                "kernel resource `{}` is a {} but buffer `{}` is bound as {}",
                r.name,
                r.kind.name(),
                buf.name,
                d.kind.name()
            )));
        }
        let bytes = buf.element_bytes();
        // A typed buffer's element is its view format (`Format` x `Channels`); the kernel's
        // Buffer<T> must read exactly that (no format conversion here), unless it only asks
        // for the view's size.
        if matches!(d.kind, DescriptorKind::Buffer | DescriptorKind::RWBuffer) && !r.size_only {
            let channels = buf.channels.unwrap_or(1);
            let view = channels as usize * buf.format.size();
            if view != r.stride as usize {
                return Err(RunError::unsupported(format!(
                    "typed buffer `{}` is viewed as {channels} x {} per element ({view} bytes) but the kernel's `{}` reads {} ({} bytes): format conversion is not supported",
                    buf.name,
                    buf.format.name(),
                    r.name,
                    r.element_type,
                    r.stride
                )));
            }
        }
        if d.kind == DescriptorKind::ConstantBuffer && (bytes as u64) < r.stride as u64 {
            return Err(RunError::invalid(format!(
                "cbuffer `{}` needs {} bytes but buffer `{}` has {}",
                r.name, r.stride, buf.name, bytes
            )));
        }
        if d.kind != DescriptorKind::ConstantBuffer && !r.size_only && r.stride != 0 && bytes % r.stride as usize > 0 {
            warnings.push(format!(
                "buffer `{}` ({} bytes) bound to `{}` is not a whole number of {}-byte {} elements",
                buf.name, bytes, r.name, r.stride, r.element_type
            ));
        }
        if r.counter_register.is_some() && !d.has_counter {
            return Err(RunError::invalid(format!(
                "kernel resource `{}` uses its UAV counter but buffer `{}` is bound without one (add `HasCounter: true` to its descriptor)",
                r.name, buf.name
            )));
        }
        bound.push((r, d, element));
    }
    // Place the used buffers in declaration order, array elements in order.
    let mut placements: Vec<Placement> = Vec::new();
    let mut next: u64 = 0;
    let mut last_size: Option<u64> = None;
    for (i, b) in p.buffers.iter().enumerate() {
        for k in 0..b.array_size {
            if !bound.iter().any(|&(_, d, e)| d.buffer == i && e == k) {
                continue;
            }
            let address = next_address(next, last_size.unwrap_or(0), last_size.is_some());
            let size = b.element_bytes() as u64;
            last_size = Some(size);
            next = address + size;
            placements.push(Placement { buffer: i, element: k, address: address as u32, size: size as u32 });
        }
    }
    // Counters of every buffer bound with one, 4 bytes each.
    let mut counters = Vec::new();
    for d in p.descriptors().filter(|d| d.has_counter) {
        for k in 0..p.buffers[d.buffer].array_size {
            if counters.iter().any(|c: &CounterPlacement| c.buffer == d.buffer && c.element == k) {
                continue;
            }
            let address = if counters.is_empty() { next_address(next, last_size.unwrap_or(0), last_size.is_some()) } else { next };
            next = address + 4;
            counters.push(CounterPlacement { buffer: d.buffer, element: k, address: address as u32 });
        }
    }
    // The kernel's own constants (see `interface::ConstantBlock`) follow.
    let mut const_at = None;
    if let Some(c) = &iface.constants {
        let address = next_address(next, last_size.unwrap_or(0), last_size.is_some() && counters.is_empty());
        next = address + c.bytes.len() as u64;
        const_at = Some((c.register, address as u32));
    }
    // The scratch buffer: one block per workgroup dispatched.
    let mut scratch = None;
    if let Some(sc) = &iface.scratch {
        let bytes = sc.bytes_for(p.dispatch).ok_or_else(|| {
            RunError::invalid(format!(
                "the kernel's scratch buffer for spill slots ({} bytes per workgroup) does not fit a 32-bit device address space for {:?} workgroups",
                sc.bytes_per_workgroup, p.dispatch
            ))
        })?;
        let guard = last_size.is_some() && counters.is_empty() && iface.constants.is_none();
        let address = next_address(next, last_size.unwrap_or(0), guard);
        next = address + bytes as u64;
        scratch = Some((address as u32, bytes));
    }
    if next > u32::MAX as u64 {
        return Err(RunError::invalid("the bound buffers do not fit in a 32-bit device address space"));
    }
    let constants = match (&iface.constants, const_at) {
        (Some(c), Some((_, at))) => Some((at, c.bytes.clone())),
        _ => None,
    };
    let mut args: Vec<(u32, u32)> = Vec::new();
    for &(r, d, e) in &bound {
        let at = placements.iter().find(|pl| pl.buffer == d.buffer && pl.element == e).map_or(0, |pl| pl.address);
        args.push((r.register, at));
    }
    args.extend(const_at);
    if let (Some(sc), Some((at, _))) = (&iface.scratch, scratch) {
        args.push((sc.register, at));
    }
    for &(r, d, e) in &bound {
        let buf = &p.buffers[d.buffer];
        // The size of the view: bytes, or for a typed buffer its element count
        // in the view's format (D3D's NumElements, what GetDimensions reports).
        if let Some(reg) = r.size_register {
            let bytes = buf.element_bytes() as u32;
            let size = if d.kind.is_typed() {
                let elem = buf.channels.unwrap_or(1) * buf.format.size() as u32;
                bytes / elem.max(1)
            } else {
                bytes
            };
            args.push((reg, size));
        }
        if let Some(reg) = r.counter_register {
            let at = counters.iter().find(|c| c.buffer == d.buffer && c.element == e).map_or(0, |c| c.address);
            args.push((reg, at));
        }
    }
    Ok(MemoryLayout { placements, counters, size: next as u32, args, warnings, constants, scratch })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::{Binding, BindingClass, BoundResource, ResourceKind};
    use crate::run::pipeline::parse_pipeline;

    const P: &str = r#"
Shaders: [ { Stage: Compute, Entry: main, DispatchSize: [1, 1, 1] } ]
Buffers:
  - { Name: Expected, Format: Int32, Data: [ 1, 2, 3 ] }
  - { Name: A, Format: Int32, Data: [ 1, 2, 3 ] }
  - { Name: Unused, Format: Int32, Data: [ 9 ] }
  - { Name: Consts, Format: UInt32, Data: [ 3, 7 ] }
  - { Name: B, Format: Int16, Data: [ 1, 2, 3, 4, 5 ] }
DescriptorSets:
  - Resources:
    - { Name: A, Kind: StructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
    - { Name: Unused, Kind: StructuredBuffer, DirectXBinding: { Register: 5, Space: 0 } }
    - { Name: B, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }
  - Resources:
    - { Name: Consts, Kind: ConstantBuffer, DirectXBinding: { Register: 0, Space: 1 } }
"#;

    fn res(register: u32, name: &str, kind: ResourceKind, class: BindingClass, index: u32, space: u32, stride: u32) -> BoundResource {
        BoundResource {
            register,
            name: name.into(),
            kind,
            binding: Binding { class, index, space },
            element_type: "int".into(),
            stride,
            members: Vec::new(),
            size_register: None,
            counter_register: None,
            size_only: false,
            array: None,
        }
    }

    fn iface(resources: Vec<BoundResource>) -> KernelInterface {
        KernelInterface {
            kernel: "main".into(),
            workgroup_size: [1, 1, 1],
            numthreads: None,
            registers: 8,
            local_memory: 0,
            resources,
            constants: None,
            scratch: None,
        }
    }

    #[test]
    fn places_bound_buffers_aligned_in_declaration_order() {
        let p = parse_pipeline(P).unwrap();
        // Resource order differs from buffer order on purpose.
        let k = iface(vec![
            res(0, "Out", ResourceKind::RWStructuredBuffer, BindingClass::U, 0, 0, 2),
            res(1, "Params", ResourceKind::ConstantBuffer, BindingClass::B, 0, 1, 8),
            res(2, "In", ResourceKind::StructuredBuffer, BindingClass::T, 0, 0, 4),
        ]);
        let l = layout(&p, &k).unwrap();
        // Each buffer but the last is followed by a zero guard of at least GUARD_MIN bytes.
        assert_eq!(
            l.placements,
            vec![
                Placement { buffer: 1, element: 0, address: 0, size: 12 },
                Placement { buffer: 3, element: 0, address: 0x110, size: 8 },
                Placement { buffer: 4, element: 0, address: 0x220, size: 10 },
            ]
        );
        assert_eq!(l.size, 0x22a);
        assert_eq!(l.args, vec![(0, 0x220), (1, 0x110), (2, 0)]);
        assert!(l.warnings.is_empty());
        assert_eq!(l.describe(&p), "A at 0x0..0xc, Consts at 0x110..0x118, B at 0x220..0x22a");
        let mut mem = l.memory(&p);
        assert_eq!(mem.bytes.len(), 0x22a);
        assert_eq!(&mem.bytes[0..12], &p.buffers[1].data[..]);
        assert!(mem.bytes[12..0x110].iter().all(|b| *b == 0));
        assert_eq!(&mem.bytes[0x110..0x118], &p.buffers[3].data[..]);
        assert_eq!(&mem.bytes[0x220..0x22a], &p.buffers[4].data[..]);
        // Writes into a guard are found after the run (the first one per buffer).
        assert!(l.guard_writes(&mem).is_empty());
        mem.bytes[0x118 + 5] = 1;
        mem.bytes[0x118 + 9] = 1;
        mem.bytes[12] = 7;
        assert_eq!(l.guard_writes(&mem), vec![(1, 0), (3, 5)]);
    }

    #[test]
    fn guards_are_as_large_as_the_buffer_before_them() {
        // A 1000-byte buffer gets a 1008-byte guard (its size, aligned); a guard also
        // separates the last buffer from the kernel's constants.
        let text = "Buffers:\n  - { Name: A, Format: Int32, FillSize: 1000 }\n  - { Name: B, Format: Int32, Data: [ 1 ] }\n\
                    DescriptorSets:\n  - Resources:\n    - { Name: A, Kind: StructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }\n\
                    \x20   - { Name: B, Kind: StructuredBuffer, DirectXBinding: { Register: 1, Space: 0 } }\n";
        let p = parse_pipeline(&format!("Shaders: [ {{ Stage: Compute, Entry: main }} ]\n{text}")).unwrap();
        let mut k = iface(vec![
            res(0, "A", ResourceKind::StructuredBuffer, BindingClass::T, 0, 0, 4),
            res(1, "B", ResourceKind::StructuredBuffer, BindingClass::T, 1, 0, 4),
        ]);
        k.constants = Some(crate::interface::ConstantBlock { register: 2, tables: Vec::new(), bytes: vec![9; 8] });
        let l = layout(&p, &k).unwrap();
        assert_eq!(l.placements[1].address, 1008 + 1008);
        assert_eq!(l.constants.as_ref().map(|c| c.0), Some(2016 + 16 + 256));
        assert_eq!(l.size, 2016 + 16 + 256 + 8);
    }

    #[test]
    fn the_scratch_buffer_comes_last_with_a_block_per_workgroup() {
        let text = "DispatchParameters: { DispatchGroupCount: [3, 2, 1] }\nBuffers:\n  - { Name: A, Format: Int32, Data: [ 1, 2 ] }\n\
                    DescriptorSets:\n  - Resources:\n    - { Name: A, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }\n";
        let p = parse_pipeline(&format!("Shaders: [ {{ Stage: Compute, Entry: main }} ]\n{text}")).unwrap();
        let mut k = iface(vec![res(0, "A", ResourceKind::RWStructuredBuffer, BindingClass::U, 0, 0, 4)]);
        // 2 slots of 64 threads: 512 bytes per workgroup, 6 workgroups.
        k.scratch = Some(crate::interface::ScratchBuffer::new(1, 2, 64));
        let l = layout(&p, &k).unwrap();
        // After the buffer's guard (A ends at 8: 16 + 256); its address goes in
        // the register after the others.
        assert_eq!(l.scratch, Some((272, 6 * 512)));
        assert_eq!(l.args, vec![(0, 0), (1, 272)]);
        assert_eq!(l.size, 272 + 6 * 512);
        let mut mem = l.memory(&p);
        assert!(mem.bytes[8..].iter().all(|b| *b == 0));
        // The guard before it still catches a write past A.
        mem.bytes[9] = 1;
        assert_eq!(l.guard_writes(&mem), vec![(0, 1)]);
        // A dispatch whose blocks overflow 32-bit addresses is refused.
        k.scratch = Some(crate::interface::ScratchBuffer::new(1, 1 << 20, 1024));
        let e = layout(&p, &k).unwrap_err();
        assert!(e.message.contains("scratch buffer"), "{}", e.message);
    }

    #[test]
    fn unbound_kernel_resource_is_an_error() {
        let p = parse_pipeline(P).unwrap();
        let k = iface(vec![res(0, "Out", ResourceKind::RWStructuredBuffer, BindingClass::U, 3, 0, 4)]);
        let e = layout(&p, &k).unwrap_err();
        assert_eq!(e.exit_code, 2);
        assert!(e.message.contains("kernel resource `Out` (RWStructuredBuffer at register u3) is not bound"), "{}", e.message);
        // Same register, other space.
        let k = iface(vec![res(0, "C", ResourceKind::ConstantBuffer, BindingClass::B, 0, 0, 8)]);
        assert!(layout(&p, &k).unwrap_err().message.contains("Space: 0"));
    }

    #[test]
    fn small_cbuffer_is_an_error_and_ragged_buffer_a_warning() {
        let p = parse_pipeline(P).unwrap();
        let k = iface(vec![res(0, "C", ResourceKind::ConstantBuffer, BindingClass::B, 0, 1, 12)]);
        assert!(layout(&p, &k).unwrap_err().message.contains("needs 12 bytes"));
        let k = iface(vec![res(0, "Out", ResourceKind::RWStructuredBuffer, BindingClass::U, 0, 0, 4)]);
        let l = layout(&p, &k).unwrap();
        assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
        assert_eq!(l.placements, vec![Placement { buffer: 4, element: 0, address: 0, size: 10 }]);
    }

    #[test]
    fn array_elements_and_counters() {
        let p = parse_pipeline(
            r#"
Shaders: [ { Stage: Compute, Entry: main } ]
Buffers:
  - { Name: Arr, Format: Int32, ArraySize: 3, FillSize: 8 }
  - { Name: T, Format: Int32, Channels: 2, Data: [ 1, 2, 3, 4, 5, 6 ] }
DescriptorSets:
  - Resources:
    - { Name: Arr, Kind: RWStructuredBuffer, HasCounter: true, DirectXBinding: { Register: 4, Space: 0 } }
    - { Name: T, Kind: Buffer, DirectXBinding: { Register: 0, Space: 0 } }
"#,
        )
        .unwrap();
        // Elements 2 and 0 of the array (registers u6, u4), the first with its counter;
        // the typed buffer's size is its element count in the view's format (3 int2).
        let mut e2 = res(0, "A[2]", ResourceKind::RWStructuredBuffer, BindingClass::U, 6, 0, 4);
        e2.counter_register = Some(3);
        let e0 = res(1, "A[0]", ResourceKind::RWStructuredBuffer, BindingClass::U, 4, 0, 4);
        let mut t = res(2, "T", ResourceKind::Buffer, BindingClass::T, 0, 0, 16);
        t.size_register = Some(4);
        t.size_only = true;
        let l = layout(&p, &iface(vec![e2, e0, t])).unwrap();
        assert_eq!(
            l.placements,
            vec![
                Placement { buffer: 0, element: 0, address: 0, size: 8 },
                Placement { buffer: 0, element: 2, address: 0x110, size: 8 },
                Placement { buffer: 1, element: 0, address: 0x220, size: 24 },
            ]
        );
        // Every buffer of a HasCounter descriptor has a counter, used or not.
        let counters: Vec<(u32, u32)> = l.counters.iter().map(|c| (c.element, c.address)).collect();
        // Each placement is followed by its zero guard (at least 256 bytes), counters too.
        assert_eq!(counters, vec![(0, 0x340), (1, 0x344), (2, 0x348)]);
        assert_eq!(l.args, vec![(0, 0x110), (1, 0), (2, 0x220), (3, 0x348), (4, 3)]);
        assert_eq!(l.describe(&p), "Arr[0] at 0x0..0x8, Arr[2] at 0x110..0x118, T at 0x220..0x238");
        // Read back: element 2's bytes land in the right place, counters per element.
        let mut mem = l.memory(&p);
        mem.bytes[0x110] = 9;
        mem.bytes[0x348] = 5;
        let out = l.read_back(&p, |a, n| Ok(mem.bytes[a as usize..a as usize + n].to_vec())).unwrap();
        assert_eq!(out.buffers[0].data[16], 9);
        assert_eq!(out.buffers[0].counters, vec![0, 0, 5]);
        // A counter the descriptor does not have is an error; a register past the array is unbound.
        let mut plain = res(0, "T", ResourceKind::Buffer, BindingClass::T, 0, 0, 8);
        plain.counter_register = Some(1);
        assert!(layout(&p, &iface(vec![plain])).unwrap_err().message.contains("HasCounter"));
        let past = res(0, "A[3]", ResourceKind::RWStructuredBuffer, BindingClass::U, 7, 0, 4);
        assert!(layout(&p, &iface(vec![past])).unwrap_err().message.contains("not bound"));
        // A typed buffer read element by element must match its view.
        let read = res(0, "T", ResourceKind::Buffer, BindingClass::T, 0, 0, 16);
        assert_eq!(layout(&p, &iface(vec![read])).unwrap_err().exit_code, 77);
    }

    #[test]
    fn no_resources_no_memory() {
        let p = parse_pipeline(P).unwrap();
        let l = layout(&p, &iface(vec![])).unwrap();
        assert_eq!((l.size, l.args.len(), l.placements.len()), (0, 0, 0));
    }
}
