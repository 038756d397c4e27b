// A prototype without a definition: the kernel calls a function that has no body.
float Attenuation(float d);

RWStructuredBuffer<float> Output : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Output[id.x] = Attenuation(id.x);
}
