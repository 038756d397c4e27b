RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    float x = i * 0.5;
    switch (x) { case 1: Out[i] = 1; break; default: break; }
}
