RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    int16_t small = (int16_t)i;
    Out[i] = small;
}
