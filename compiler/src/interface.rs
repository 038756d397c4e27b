//! The kernel's launch interface (ABI, design.md §7): which register holds
//! which bound resource. Printed in the listing header and as JSON for hosts.

use serde::Serialize;

/// Everything a host needs to launch a compiled kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelInterface {
    pub kernel: String,
    /// The workgroup to launch with: the kernel's `[numthreads]`, or on
    /// `wave-0.1.2` for a kernel with wave operations whose thread count is
    /// not a multiple of 32, that count rounded up to one, in one dimension
    /// (`passes::pad_warps`; `numthreads` then holds the declared size).
    pub workgroup_size: [u32; 3],
    /// The declared `[numthreads]` when `workgroup_size` pads it to whole
    /// warps: the threads past their product do nothing, and every id the
    /// program sees is the one the declared launch gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub numthreads: Option<[u32; 3]>,
    /// Value of `.registers`.
    pub registers: u32,
    /// Value of `.local_memory` (bytes of groupshared memory).
    pub local_memory: u32,
    /// Bound resources in ABI order: resource i's byte address is in `r{i}`.
    pub resources: Vec<BoundResource>,
    /// Constant tables the compiler placed in memory (large `static const`
    /// arrays, like DXC's immediate constant buffer): the host puts `bytes`
    /// in device memory and their address in `register`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constants: Option<ConstantBlock>,
    /// Device memory the host allocates for spill slots that local memory
    /// could not hold (register allocation decides; none for most kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scratch: Option<ScratchBuffer>,
}

/// The scratch buffer for spill slots in device memory. Each workgroup owns
/// a block of `bytes_per_workgroup` bytes at `g * bytes_per_workgroup`, `g`
/// its flattened id; inside it, slot-major words, one per thread (see
/// `layout`). The host allocates `bytes_per_workgroup` times the number of
/// workgroups dispatched and passes the address in `register`; the contents
/// need not be initialized (every word is written before it is read) and are
/// garbage afterwards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScratchBuffer {
    /// Argument register holding the buffer's byte address (the first after
    /// the other arguments).
    pub register: u32,
    /// Spill slots in the buffer: words per thread.
    pub slots: u32,
    pub bytes_per_thread: u32,
    pub bytes_per_workgroup: u32,
    /// The address of slot `s` of a thread, as a formula.
    pub layout: String,
}

impl ScratchBuffer {
    /// The scratch buffer of `slots` slots for workgroups of `threads` threads, in `register`.
    pub fn new(register: u32, slots: u32, threads: u32) -> ScratchBuffer {
        ScratchBuffer {
            register,
            slots,
            bytes_per_thread: slots * 4,
            bytes_per_workgroup: slots.saturating_mul(threads).saturating_mul(4),
            layout: "scratch + g * bytes_per_workgroup + (s * T + tid) * 4, g = group.x + groups.x * (group.y + groups.y * group.z), \
                     T threads per workgroup, tid the flattened thread index in the group"
                .to_string(),
        }
    }

    /// Bytes to allocate for a dispatch of `groups` workgroups, if they fit 32-bit addresses.
    pub fn bytes_for(&self, groups: [u32; 3]) -> Option<u32> {
        let n = groups.iter().map(|&g| g as u64).product::<u64>();
        u32::try_from(n * self.bytes_per_workgroup as u64).ok()
    }
}

/// Read-only data the kernel brings with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConstantBlock {
    /// Argument register holding the block's byte address.
    pub register: u32,
    /// The tables in the block: (name, byte offset, byte size).
    pub tables: Vec<(String, u32, u32)>,
    pub bytes: Vec<u8>,
}

/// Kinds of bound resource. Every one is a range of device memory whose byte
/// address the kernel receives; they differ in access rules and layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ResourceKind {
    StructuredBuffer,
    RWStructuredBuffer,
    /// `AppendStructuredBuffer<T>` / `ConsumeStructuredBuffer<T>`: a structured
    /// buffer (bound as a `RWStructuredBuffer` view) used through its UAV counter.
    AppendStructuredBuffer,
    ConsumeStructuredBuffer,
    ByteAddressBuffer,
    RWByteAddressBuffer,
    /// Typed buffers (`Buffer<T>`, `RWBuffer<T>`): elements of T, packed tightly.
    Buffer,
    RWBuffer,
    /// `cbuffer`, `ConstantBuffer<T>` and the implicit `$Globals`.
    ConstantBuffer,
}

impl ResourceKind {
    /// The name used by HLSL and the pipeline format.
    pub fn name(self) -> &'static str {
        match self {
            ResourceKind::StructuredBuffer => "StructuredBuffer",
            ResourceKind::RWStructuredBuffer => "RWStructuredBuffer",
            ResourceKind::AppendStructuredBuffer => "AppendStructuredBuffer",
            ResourceKind::ConsumeStructuredBuffer => "ConsumeStructuredBuffer",
            ResourceKind::ByteAddressBuffer => "ByteAddressBuffer",
            ResourceKind::RWByteAddressBuffer => "RWByteAddressBuffer",
            ResourceKind::Buffer => "Buffer",
            ResourceKind::RWBuffer => "RWBuffer",
            ResourceKind::ConstantBuffer => "ConstantBuffer",
        }
    }
    pub fn is_writable(self) -> bool {
        matches!(
            self,
            ResourceKind::RWStructuredBuffer
                | ResourceKind::RWByteAddressBuffer
                | ResourceKind::RWBuffer
                | ResourceKind::AppendStructuredBuffer
                | ResourceKind::ConsumeStructuredBuffer
        )
    }
    /// The kind of view (descriptor) a host binds to a resource of this kind:
    /// append/consume buffers are structured UAVs with a counter.
    pub fn view_kind(self) -> ResourceKind {
        match self {
            ResourceKind::AppendStructuredBuffer | ResourceKind::ConsumeStructuredBuffer => ResourceKind::RWStructuredBuffer,
            k => k,
        }
    }
    /// Structured buffers of any kind (their elements have a stride; they may have a counter).
    pub fn is_structured(self) -> bool {
        matches!(
            self,
            ResourceKind::StructuredBuffer
                | ResourceKind::RWStructuredBuffer
                | ResourceKind::AppendStructuredBuffer
                | ResourceKind::ConsumeStructuredBuffer
        )
    }
    /// Typed buffers (`Buffer<T>`, `RWBuffer<T>`): their size argument counts elements.
    pub fn is_typed(self) -> bool {
        matches!(self, ResourceKind::Buffer | ResourceKind::RWBuffer)
    }
    /// The register class HLSL binds this kind to.
    pub fn binding_class(self) -> BindingClass {
        match self {
            ResourceKind::ConstantBuffer => BindingClass::B,
            k if k.is_writable() => BindingClass::U,
            _ => BindingClass::T,
        }
    }
}

/// Register class of an HLSL binding: `t#`, `u#`, `b#`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum BindingClass {
    T,
    U,
    B,
}

impl BindingClass {
    pub fn letter(self) -> char {
        match self {
            BindingClass::T => 't',
            BindingClass::U => 'u',
            BindingClass::B => 'b',
        }
    }
}

/// An HLSL `register(x#, space#)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Binding {
    pub class: BindingClass,
    pub index: u32,
    pub space: u32,
}

impl Binding {
    /// Reads a register as the command line writes it: `u1`, `t0,space2` (or `t0:2`).
    pub fn parse(text: &str) -> Option<Binding> {
        let t = text.trim();
        let (reg, space) = match t.split_once([',', ':']) {
            Some((r, sp)) => {
                let sp = sp.trim();
                (r.trim(), sp.strip_prefix("space").unwrap_or(sp).parse::<u32>().ok()?)
            }
            None => (t, 0),
        };
        let mut chars = reg.chars();
        let class = match chars.next()?.to_ascii_lowercase() {
            't' => BindingClass::T,
            'u' => BindingClass::U,
            'b' => BindingClass::B,
            _ => return None,
        };
        let index = chars.as_str().parse::<u32>().ok()?;
        Some(Binding { class, index, space })
    }
}

impl std::fmt::Display for Binding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.class.letter(), self.index)?;
        if self.space != 0 {
            write!(f, ", space{}", self.space)?;
        }
        Ok(())
    }
}

/// One resource and the argument register holding its byte address.
///
/// Every element of a resource array (`RWBuffer<int> B[4] : register(u4)`) and
/// every resource inside a global struct is a resource of its own, with its own
/// binding (`u4`..`u7`) and registers: `name` says which (`B[2]`, `s.buf`,
/// `d[1].Buf`) and `array` which element of which declared array it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoundResource {
    /// Argument register index: the address is in `r{register}`.
    pub register: u32,
    pub name: String,
    /// For an element of a resource array: the array's name and the element's
    /// indices (outermost first; `B[1][2]` is `("B", [1, 2])`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<ArrayElement>,
    pub kind: ResourceKind,
    pub binding: Binding,
    /// HLSL element type as written (e.g. "float"); for cbuffers "cbuffer".
    pub element_type: String,
    /// Bytes per element (structured buffers) or size of the cbuffer.
    pub stride: u32,
    /// A cbuffer's members and their byte offsets (empty for buffers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<CbufferMember>,
    /// Argument register holding the buffer's size, if the kernel needs it
    /// (`GetDimensions`, `--robust-access`): its byte size, except for typed buffers,
    /// whose size is the element count of the host's view (D3D's `NumElements`:
    /// the view's format decides it, as for `GetDimensions` on D3D).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_register: Option<u32>,
    /// Argument register holding the byte address of the resource's UAV counter
    /// (one u32 the host sets to 0 before the launch and may read back after it),
    /// if the kernel uses it (`IncrementCounter`, `DecrementCounter`, `Append`, `Consume`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counter_register: Option<u32>,
    /// The kernel reads only the resource's size (`GetDimensions`), never its
    /// contents: the host's view may have any format.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub size_only: bool,
}

/// Which element of which resource array a bound resource is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArrayElement {
    pub name: String,
    pub index: Vec<u32>,
}

/// One member of a cbuffer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CbufferMember {
    pub name: String,
    /// HLSL type as written (e.g. "float").
    pub ty: String,
    /// Byte offset from the cbuffer's address.
    pub offset: u32,
}

impl KernelInterface {
    /// The resource bound at `binding`, if any.
    pub fn resource_at(&self, binding: Binding) -> Option<&BoundResource> {
        self.resources.iter().find(|r| r.binding == binding)
    }
    /// Registers the ABI's arguments occupy (`r0` up to the highest address,
    /// size or counter register, the constant block's or the scratch buffer's): a floor on
    /// `.registers` that no allocation can go below.
    pub fn abi_registers(&self) -> u32 {
        abi_registers(&self.resources, self.constants.as_ref()).max(self.scratch.as_ref().map_or(0, |s| s.register + 1))
    }
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// [`KernelInterface::abi_registers`] before the interface is built.
pub fn abi_registers(resources: &[BoundResource], constants: Option<&ConstantBlock>) -> u32 {
    resources
        .iter()
        .map(|r| r.register.max(r.size_register.unwrap_or(0)).max(r.counter_register.unwrap_or(0)) + 1)
        .chain(constants.map(|c| c.register + 1))
        .max()
        .unwrap_or(0)
}
