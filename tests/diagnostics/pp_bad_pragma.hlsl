#pragma kernel
#pragma pack_matrix(rows)
[numthreads(64, 1, 1)]
void main() {}
