// wavec: --max-registers 2
// One buffer (r0), but a store needs its address and its value in registers
// next to the buffer's address: 2 registers cannot hold them even with
// spilling, so the budget rises and the warning names the values at the peak.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    uint x = i * 3u + 1u;
    uint y = x * x + i;
    Out[i] = x + y * 5u;
}
