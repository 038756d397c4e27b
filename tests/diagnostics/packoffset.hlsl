cbuffer Params : register(b0) {
    float scale : packoffset(c0.y);
};
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = scale; }
