RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    switch (i & 3) {
    case 0: Out[i] = 10; break;
    case 1: Out[i] = 20; break;
    case 0: Out[i] = 30; break;
    }
}
