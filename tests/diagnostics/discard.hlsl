RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    if (i > 4) discard;
    Out[i] = 1;
}
