RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    uint counter = 0;
    InterlockedAdd(counter, 1);
    Out[i] = counter;
}
