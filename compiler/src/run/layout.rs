//! Device memory layout of a dispatch.
//!
//! Only buffers that a descriptor binds to a resource the kernel uses go into
//! device memory (expected-value buffers and unused descriptors stay on the
//! host). They are placed in the order of the YAML `Buffers` list, from byte
//! address 0, each at a multiple of [`BUFFER_ALIGN`] (16) bytes. Between two
//! placed buffers lies a zero *guard* as large as the first (at least
//! [`GUARD_MIN`] bytes): a read that runs off the end of a buffer, as D3D code
//! may (its robust buffer access gives 0), reads zeros there instead of the next
//! buffer, and a write there is found after the run ([`MemoryLayout::guard_writes`]).
//! Device memory ends exactly at the end of the last placed buffer (or the
//! kernel's constants after it), so an access past the end faults. A buffer
//! bound to several resources is placed once. Resource `i` of the kernel gets
//! its buffer's byte address in register `interface.resources[i].register`
//! (design.md §7).

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

/// Where one buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Index into `Pipeline::buffers`.
    pub buffer: usize,
    pub address: u32,
    pub size: u32,
}

/// Device memory layout and launch arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLayout {
    pub placements: Vec<Placement>,
    /// Device memory size, bytes.
    pub size: u32,
    /// Initial registers: (register, byte address), one per kernel resource.
    pub args: Vec<(u32, u32)>,
    /// Things worth telling the user that do not stop the run.
    pub warnings: Vec<String>,
    /// The kernel's constant block: its address and bytes.
    pub constants: Option<(u32, Vec<u8>)>,
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
        starts.extend(self.constants.as_ref().map(|(at, _)| *at));
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

    /// One line per placed buffer: `Name at 0x0..0x40`.
    pub fn describe(&self, p: &Pipeline) -> String {
        self.placements
            .iter()
            .map(|pl| format!("{} at {:#x}..{:#x}", p.buffers[pl.buffer].name, pl.address, pl.address + pl.size))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Device memory holding the placed buffers.
    pub fn memory(&self, p: &Pipeline) -> wavesim::Memory {
        let mut mem = wavesim::Memory::new(self.size as usize);
        for pl in &self.placements {
            let data = &p.buffers[pl.buffer].data;
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
    // Resource -> buffer.
    let mut bound: Vec<(u32, usize)> = Vec::new();
    for r in &iface.resources {
        let Some(d) = p.descriptors().find(|d| d.binding == r.binding) else {
            return Err(RunError::invalid(format!(
                "kernel resource `{}` ({} at register {}) is not bound: no DescriptorSets resource has Kind {} with DirectXBinding {{ Register: {}, Space: {} }}",
                r.name,
                r.kind.name(),
                r.binding,
                r.kind.name(),
                r.binding.index,
                r.binding.space
            )));
        };
        let buf = &p.buffers[d.buffer];
        if d.kind.name() != r.kind.name() {
            return Err(RunError::invalid(format!(
                "kernel resource `{}` is a {} but buffer `{}` is bound as {}",
                r.name,
                r.kind.name(),
                buf.name,
                d.kind.name()
            )));
        }
        // A typed buffer's element is its view format (`Format` x `Channels`); the kernel's
        // Buffer<T> must read exactly that (no format conversion here).
        if matches!(d.kind, DescriptorKind::Buffer | DescriptorKind::RWBuffer) {
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
        if d.kind == DescriptorKind::ConstantBuffer && (buf.data.len() as u64) < r.stride as u64 {
            return Err(RunError::invalid(format!(
                "cbuffer `{}` needs {} bytes but buffer `{}` has {}",
                r.name,
                r.stride,
                buf.name,
                buf.data.len()
            )));
        }
        if d.kind != DescriptorKind::ConstantBuffer && r.stride != 0 && buf.data.len() % r.stride as usize > 0 {
            warnings.push(format!(
                "buffer `{}` ({} bytes) bound to `{}` is not a whole number of {}-byte {} elements",
                buf.name,
                buf.data.len(),
                r.name,
                r.stride,
                r.element_type
            ));
        }
        bound.push((r.register, d.buffer));
    }
    // Place the used buffers in declaration order.
    let mut placements: Vec<Placement> = Vec::new();
    let mut next: u64 = 0;
    let mut last_size: Option<u64> = None;
    for (i, b) in p.buffers.iter().enumerate() {
        if !bound.iter().any(|&(_, bi)| bi == i) {
            continue;
        }
        let address = next_address(next, last_size.unwrap_or(0), last_size.is_some());
        last_size = Some(b.data.len() as u64);
        let end = address + b.data.len() as u64;
        if end > u32::MAX as u64 {
            return Err(RunError::invalid("the bound buffers do not fit in a 32-bit device address space"));
        }
        placements.push(Placement { buffer: i, address: address as u32, size: b.data.len() as u32 });
        next = end;
    }
    // The kernel's own constants (see `interface::ConstantBlock`) follow the buffers.
    let mut const_at = None;
    if let Some(c) = &iface.constants {
        let address = next_address(next, last_size.unwrap_or(0), last_size.is_some());
        next = address + c.bytes.len() as u64;
        if next > u32::MAX as u64 {
            return Err(RunError::invalid("the bound buffers do not fit in a 32-bit device address space"));
        }
        const_at = Some((c.register, address as u32));
    }
    let constants = match (&iface.constants, const_at) {
        (Some(c), Some((_, at))) => Some((at, c.bytes.clone())),
        _ => None,
    };
    let mut args: Vec<(u32, u32)> =
        bound.iter().map(|&(reg, bi)| (reg, placements.iter().find(|pl| pl.buffer == bi).map_or(0, |pl| pl.address))).collect();
    args.extend(const_at);
    // `GetDimensions`: the byte size of a buffer in its size register.
    for r in &iface.resources {
        if let (Some(reg), Some(d)) = (r.size_register, p.descriptors().find(|d| d.binding == r.binding)) {
            args.push((reg, p.buffers[d.buffer].data.len() as u32));
        }
    }
    Ok(MemoryLayout { placements, size: next as u32, args, warnings, constants })
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
        }
    }

    fn iface(resources: Vec<BoundResource>) -> KernelInterface {
        KernelInterface { kernel: "main".into(), workgroup_size: [1, 1, 1], registers: 8, local_memory: 0, resources, constants: None }
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
                Placement { buffer: 1, address: 0, size: 12 },
                Placement { buffer: 3, address: 0x110, size: 8 },
                Placement { buffer: 4, address: 0x220, size: 10 },
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
        assert_eq!(l.placements, vec![Placement { buffer: 4, address: 0, size: 10 }]);
    }

    #[test]
    fn no_resources_no_memory() {
        let p = parse_pipeline(P).unwrap();
        let l = layout(&p, &iface(vec![])).unwrap();
        assert_eq!((l.size, l.args.len(), l.placements.len()), (0, 0, 0));
    }
}
