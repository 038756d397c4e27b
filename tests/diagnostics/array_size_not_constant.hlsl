cbuffer Params : register(b0) { uint count; };
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    float tmp[count];
    Out[0] = tmp[0];
}
