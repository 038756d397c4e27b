// "What is shader occupancy and why do we care about it?": a wave stalls when it
// uses a load's result, not when it issues the load, and the SIMD hides the wait
// by switching to another resident wave. Each thread here reads eight values from
// DRAM, each one used right away: alone, a wave waits out every load.
//
// On gcn the kernel needs few registers (10 waves per SIMD). The blog's two cases
// are what-ifs on the register count, which is what sets how many waves a SIMD holds
// (`--disable sched` keeps each load next to its use, as the blog's kernel has it):
//   wavec run examples/seeds/occupancy_latency.test --target gcn -O --disable sched --registers 32 --stats
//       (8 waves per SIMD: one wave's wait is another's turn; about two thirds of core cycles issue)
//   wavec run examples/seeds/occupancy_latency.test --target gcn -O --disable sched --registers 128 --stats
//       (2 waves per SIMD: about three quarters of core cycles wait for memory, 2.7x the cycles)
// The other way to hide latency is inside one wave: at -O the scheduler issues the
// eight loads together (registers permitting), and 2 waves per SIMD come close to 8:
//   wavec run examples/seeds/occupancy_latency.test --target gcn -O --registers 128 --stats

#define N 65536

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    float acc = 0.0f;
    [unroll]
    for (uint k = 0; k < 8; k++) {
        acc = acc * 0.5f + In[i + k * N];
    }
    Out[i] = acc;
}
