//! The kernel's launch interface (ABI, design.md §7): which register holds
//! which bound resource. Printed in the listing header and as JSON for hosts.

use serde::Serialize;

/// Everything a host needs to launch a compiled kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KernelInterface {
    pub kernel: String,
    pub workgroup_size: [u32; 3],
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
            ResourceKind::ByteAddressBuffer => "ByteAddressBuffer",
            ResourceKind::RWByteAddressBuffer => "RWByteAddressBuffer",
            ResourceKind::Buffer => "Buffer",
            ResourceKind::RWBuffer => "RWBuffer",
            ResourceKind::ConstantBuffer => "ConstantBuffer",
        }
    }
    pub fn is_writable(self) -> bool {
        matches!(self, ResourceKind::RWStructuredBuffer | ResourceKind::RWByteAddressBuffer | ResourceKind::RWBuffer)
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoundResource {
    /// Argument register index: the address is in `r{register}`.
    pub register: u32,
    pub name: String,
    pub kind: ResourceKind,
    pub binding: Binding,
    /// HLSL element type as written (e.g. "float"); for cbuffers "cbuffer".
    pub element_type: String,
    /// Bytes per element (structured buffers) or size of the cbuffer.
    pub stride: u32,
    /// A cbuffer's members and their byte offsets (empty for buffers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<CbufferMember>,
    /// Argument register holding the buffer's size in bytes (for `GetDimensions`), if the kernel needs it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_register: Option<u32>,
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
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
