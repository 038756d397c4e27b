//! Wave instructions run by every lane: lanes that were not active at the
//! instruction give its identity, so the active lanes see the result they saw
//! before, and the other lanes discard theirs.

use crate::diag::Span;
use crate::ir::*;

/// Bits of the value that leaves `op`'s reductions and prefixes unchanged.
/// Float sums add -0.0 (x + -0.0 is x, also for -0.0); float min and max
/// ignore NaNs, so a NaN takes no part.
pub fn identity(op: WaveOp) -> u32 {
    match op {
        WaveOp::IAdd | WaveOp::UMax | WaveOp::Or | WaveOp::Xor => 0,
        WaveOp::IMul => 1,
        WaveOp::SMin => i32::MAX as u32,
        WaveOp::SMax => i32::MIN as u32,
        WaveOp::UMin | WaveOp::And => u32::MAX,
        WaveOp::FAdd => (-0.0f32).to_bits(),
        WaveOp::FMul => 1.0f32.to_bits(),
        WaveOp::FMin | WaveOp::FMax => f32::NAN.to_bits(),
    }
}

/// Whether `data` is a wave operation (convergent, and not a barrier).
pub fn is_wave_op(data: &InstData) -> bool {
    data.is_convergent() && !matches!(data, InstData::Barrier)
}

/// Appends to `block` the wave instruction `inst` (not in any block) so that
/// it runs with every lane and means what it meant when only the lanes where
/// `active` holds ran it. `inst` keeps its result value.
pub fn append_for_all_lanes(f: &mut Function, block: Block, inst: Inst, active: Value, span: Span) {
    let konst = |f: &mut Function, ty: Type, bits: u32| f.append_inst(block, InstData::Const { ty, bits }, span);
    let pick = |f: &mut Function, ty: Type, x: Value, other: Value| {
        f.append_inst(block, InstData::Select { ty, cond: active, args: [x, other] }, span)
    };
    let data = f.insts[inst].clone();
    let new = match data {
        InstData::WaveReduce { op, arg } | InstData::WavePrefix { op, arg } => {
            let id = konst(f, op.ty(), identity(op));
            let arg = id.and_then(|id| pick(f, op.ty(), arg, id)).unwrap_or(arg);
            match data {
                InstData::WaveReduce { .. } => InstData::WaveReduce { op, arg },
                _ => InstData::WavePrefix { op, arg },
            }
        }
        InstData::WaveBallot { cond, word } => {
            let no = konst(f, Type::Bool, 0);
            InstData::WaveBallot { cond: no.and_then(|no| pick(f, Type::Bool, cond, no)).unwrap_or(cond), word }
        }
        InstData::WaveVote { op, cond } => {
            let neutral = konst(f, Type::Bool, u32::from(op == VoteOp::All));
            InstData::WaveVote { op, cond: neutral.and_then(|n| pick(f, Type::Bool, cond, n)).unwrap_or(cond) }
        }
        InstData::WaveReadLane { ty, arg, lane } => {
            // The lane named must be active (HLSL); the other lanes read their own.
            if matches!(f.def_inst(lane).map(|i| &f.insts[i]), Some(InstData::Const { .. })) {
                data
            } else {
                let own = f.append_inst(block, InstData::Special { reg: SpecialReg::LaneId }, span);
                let lane = own.and_then(|own| pick(f, Type::I32, lane, own)).unwrap_or(lane);
                InstData::WaveReadLane { ty, arg, lane }
            }
        }
        InstData::WaveReadFirst { ty, arg } => {
            // The first lane among the active ones: the least lane id where
            // `active` holds (none: lane 0, whose value nobody keeps).
            let first = first_active(f, block, active, span);
            InstData::WaveReadLane { ty, arg, lane: first.unwrap_or(arg) }
        }
        other => other,
    };
    f.insts[inst] = new;
    f.spans[inst] = span;
    f.blocks[block].insts.push(inst);
}

/// The least lane id where `active` holds, wave-uniform; 0 if it holds nowhere.
fn first_active(f: &mut Function, block: Block, active: Value, span: Span) -> Option<Value> {
    let lane = f.append_inst(block, InstData::Special { reg: SpecialReg::LaneId }, span)?;
    let none = f.append_inst(block, InstData::Const { ty: Type::I32, bits: u32::MAX }, span)?;
    let cand = f.append_inst(block, InstData::Select { ty: Type::I32, cond: active, args: [lane, none] }, span)?;
    let least = f.append_inst(block, InstData::WaveReduce { op: WaveOp::UMin, arg: cand }, span)?;
    let empty = f.append_inst(block, InstData::Cmp { op: CmpOp::Eq, args: [least, none] }, span)?;
    let zero = f.append_inst(block, InstData::Const { ty: Type::I32, bits: 0 }, span)?;
    f.append_inst(block, InstData::Select { ty: Type::I32, cond: empty, args: [zero, least] }, span)
}
