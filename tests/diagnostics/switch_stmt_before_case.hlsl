RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    switch (i) {
        Out[i] = 1;
    case 0: Out[i] = 2; break;
    }
}
