// One compare-and-swap pass of a bitonic sort of (key, payload) pairs. The host sorts N
// elements by dispatching this kernel for k = 2, 4, ..., N and, for each k, for
// j = k/2, k/4, ..., 1, with j and k in the cbuffer. Each pair (i, i ^ j) is handled by
// its lower index; sequences whose bit k is clear are sorted ascending, the others
// descending.
//
// Compile: wavec examples/bitonic_sort_step.hlsl -O
// Run:     wavec run examples/bitonic_sort_step.test

cbuffer SortParams : register(b0) {
    uint g_j;          // distance between compared elements
    uint g_k;          // size of the bitonic sequences being merged
    uint g_count;      // number of elements (a power of two)
};

RWStructuredBuffer<uint2> Data : register(u0);    // x: key, y: payload

[numthreads(256, 1, 1)]
void main(uint3 dispatchId : SV_DispatchThreadID) {
    uint i = dispatchId.x;
    uint partner = i ^ g_j;
    if (partner > i && partner < g_count) {
        uint2 a = Data[i];
        uint2 b = Data[partner];
        bool ascending = (i & g_k) == 0;
        bool outOfOrder = ascending ? (a.x > b.x) : (a.x < b.x);
        if (outOfOrder) {
            Data[i] = b;
            Data[partner] = a;
        }
    }
}
