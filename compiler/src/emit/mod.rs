//! Emission: the annotated `.wave` listing, `.wbin` through wave-asm 0.1.2,
//! and source for other GPUs through the published backend crates (`backends`).

mod asm;
pub mod backends;
mod frames;

pub use asm::{emit_listing, emit_listing_in, listing_name, peak_lines, point_line, ListingContext};
pub use frames::{deepest_frames, MAX_FRAMES};

/// Assembles `listing` with the published wave-asm 0.1.2 crate.
/// The listing must be in the `wave-0.1.2` profile.
pub fn assemble_wbin(listing: &str, file_name: &str) -> Result<Vec<u8>, String> {
    match wave_asm::assemble(listing, file_name) {
        Ok(result) => Ok(result.binary),
        Err(e) => Err(format!("wave-asm 0.1.2 rejected the listing: {e}")),
    }
}
