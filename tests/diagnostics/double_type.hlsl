RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    double acc = 0.0;
    acc += i;
    Out[i] = (float)acc;
}
