// A kernel occupancy does not help: each thread issues four independent loads
// before it uses any, so even two waves per SIMD keep more bytes in flight than
// DRAM delivers. The same two register counts as occupancy_latency give nearly
// the same cycles, with DRAM busy most of the run:
//   wavec run examples/seeds/bandwidth_bound.test --target gcn -O --registers 32 --stats
//   wavec run examples/seeds/bandwidth_bound.test --target gcn -O --registers 128 --stats
// ("Is high occupancy always good?" in the occupancy blog: a kernel that moves
// a lot of memory is limited by the memory system, not by latency.)

StructuredBuffer<float> A : register(t0);
StructuredBuffer<float> B : register(t1);
StructuredBuffer<float> C : register(t2);
StructuredBuffer<float> D : register(t3);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    float a = A[i];
    float b = B[i];
    float c = C[i];
    float d = D[i];
    Out[i] = (a + b) + (c + d);
}
