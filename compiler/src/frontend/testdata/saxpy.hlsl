/* y = a * x + y, with the scalars in a constant buffer */
cbuffer Params : register(b0)
{
    float a;
    uint n;
};

StructuredBuffer<float> X : register(t0);
RWStructuredBuffer<float> Y : register(u0, space0);

[numthreads(256, 1, 1)]
void saxpy(uint tid : SV_DispatchThreadID)
{
    if (tid >= n)
        return;
    Y[tid] = a * X[tid] + Y[tid];
}
