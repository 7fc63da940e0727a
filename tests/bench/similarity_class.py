#!/usr/bin/env python3
"""similarity_class.py OUT N [PAIRS]: a generated class of N lab 6 submissions for `make bench`.
similarity_class.py --copies OUT N: N copies of lab 6's solution (issues 41 and 48: one leak),
each renamed and disguised at random by the similarity corpus's generator
(tests/fixtures/similarity/corpus/generate.py: dead statements, reordered statements, a
function split or inlined, macros renamed, loops rewritten, launches changed, reformatted),
half with a function of their own; what each copy got goes to OUT/copies.txt.

Each submission is assembled from independent choices, the way students differ: loop forms and
index types, guards or grid-stride kernels, block sizes and how the block count is rounded,
error-check macros or none, one buffer or three, four ways of writing matmul on the CPU and
three on the GPU (with details of their own inside the kernels), habits (i++ or i += 1, int or
long), names of their own, comments, helpers. PAIRS of them (default 10) are then
copied into a new submission with every local name changed and the comments rewritten: the
planted copies the check must find. The list of planted pairs goes to OUT/planted.txt.
Deterministic (seeded): the same N gives the same class.
"""
import os
import random
import re
import sys

NAMES = ["i", "j", "k", "idx", "t", "p", "q", "r", "s", "u", "w", "pos", "elem", "it", "m0",
         "cnt", "acc", "tmp", "val", "off", "row", "col", "blk", "thr", "step", "stride", "len"]
COMMENTS = ["// compute", "/* main loop */", "// TODO: faster", "// done", "/* per element */",
            "// grid", "// copy back", "/* lab 6 */", "// kernel", "// check bounds"]


def pick(rnd, avoid=()):
    while True:
        n = rnd.choice(NAMES) + rnd.choice(["", "1", "2", "_", "x"])
        if n not in avoid:
            return n


def grade2_cpu(rnd):
    i, t = pick(rnd), pick(rnd)
    form = rnd.randrange(4)
    ty = rnd.choice(["int", "int32_t", "size_t", "long"])
    if form == 0:
        body = f"    for ({ty} {i} = 0; {i} < n; {i}++)\n        z[{i}] = a * x[{i}] * x[{i}] + b * y[{i}] + c;\n"
    elif form == 1:
        body = (f"    {ty} {i} = 0;\n    while ({i} < n) {{\n        double {t} = x[{i}];\n"
                f"        z[{i}] = ({t} * a) * {t} + (b * y[{i}] + c);\n        {i}++;\n    }}\n")
    elif form == 2:
        body = (f"    for (int32_t {i} = n - 1; {i} >= 0; --{i}) {{\n        const double {t} = b * y[{i}] + c;\n"
                f"        z[{i}] = a * x[{i}] * x[{i}] + {t};\n    }}\n")
    else:
        body = (f"    const double *{t} = x;\n    for (int {i} = 0; {i} < n; {i} += 1, {t}++)\n"
                f"        z[{i}] = *{t} * *{t} * a + y[{i}] * b + c;\n")
    return ('#include "lab6.h"\n\n' + rnd.choice(COMMENTS) + "\nvoid grade2_cpu(const double *x, "
            "const double *y, double *z, double a, double b, double c, int32_t n)\n{\n" + body + "}\n")


def check_macro(rnd, name):
    if rnd.random() < 0.3:
        return ""
    var = pick(rnd)
    return (f"#define {name}(call) do {{ cudaError_t {var} = (call); if ({var} != cudaSuccess) {{ "
            f"fprintf(stderr, \"%s\\n\", cudaGetErrorString({var})); exit(1); }} }} while (0)\n\n")


def grade2_gpu(rnd):
    ck = rnd.choice(["CUDA_CHECK", "CHECK", "CK", "gpuErrchk"])
    macro = check_macro(rnd, ck)
    wrap = (lambda s: f"{ck}({s});") if macro else (lambda s: f"{s};")
    k, i, st = pick(rnd), pick(rnd), pick(rnd, ("n",))
    threads = rnd.choice([128, 256, 512, 1024])
    style = rnd.randrange(3)
    if style == 0:
        kern = (f"__global__ void {k}(const double *x, const double *y, double *z, double a, double b, "
                f"double c, int n)\n{{\n    int {i} = blockIdx.x * blockDim.x + threadIdx.x;\n"
                f"    if ({i} < n)\n        z[{i}] = a * x[{i}] * x[{i}] + b * y[{i}] + c;\n}}\n")
    elif style == 1:
        kern = (f"__global__ void {k}(const double *x, const double *y, double *z, double a, double b, "
                f"double c, int n)\n{{\n    size_t {st} = (size_t)gridDim.x * blockDim.x;\n"
                f"    for (size_t {i} = blockIdx.x * blockDim.x + threadIdx.x; {i} < (size_t)n; {i} += {st})\n"
                f"        z[{i}] = (a * x[{i}] + 0.0) * x[{i}] + b * y[{i}] + c;\n}}\n")
    else:
        kern = (f"__global__ void {k}(double *z, const double *x, const double *y, double a, double b, "
                f"double c, unsigned n)\n{{\n    unsigned {i} = threadIdx.x + blockDim.x * blockIdx.x;\n"
                f"    if ({i} >= n) return;\n    double {st} = x[{i}];\n    z[{i}] = a * {st} * {st} + b * y[{i}] + c;\n}}\n")
    blocks = rnd.choice([f"(n + {threads} - 1) / {threads}", f"n / {threads} + (n % {threads} != 0)",
                         f"(n + {threads - 1}) / {threads}"])
    args = "z, x, y, a, b, c, n" if style == 2 else "x, y, z, a, b, c, n"
    dev = (f"void grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, "
           f"double c, int32_t n)\n{{\n    {k}<<<{blocks}, {threads}>>>({args});\n    "
           + wrap("cudaGetLastError()") + "\n}\n")
    d = [pick(rnd) for _ in range(3)]
    if rnd.random() < 0.5:
        host = (f"void grade2_gpu(const double *x, const double *y, double *z, double a, double b, "
                f"double c, int32_t n)\n{{\n    double *{d[0]}, *{d[1]}, *{d[2]};\n    size_t bytes = n * sizeof(double);\n"
                + "".join(f"    {wrap(f'cudaMalloc((void **)&{v}, bytes)')}\n" for v in d)
                + f"    {wrap(f'cudaMemcpy({d[0]}, x, bytes, cudaMemcpyHostToDevice)')}\n"
                f"    {wrap(f'cudaMemcpy({d[1]}, y, bytes, cudaMemcpyHostToDevice)')}\n"
                f"    grade2_gpu_dev({d[0]}, {d[1]}, {d[2]}, a, b, c, n);\n"
                f"    {wrap(f'cudaMemcpy(z, {d[2]}, bytes, cudaMemcpyDeviceToHost)')}\n"
                + "".join(f"    {wrap(f'cudaFree({v})')}\n" for v in d) + "}\n")
    else:
        host = (f"void grade2_gpu(const double *x, const double *y, double *z, double a, double b, "
                f"double c, int32_t n)\n{{\n    double *{d[0]} = NULL;\n    size_t len = (size_t)n;\n"
                f"    {wrap(f'cudaMalloc((void **)&{d[0]}, 3 * len * sizeof(double))')}\n"
                f"    {wrap(f'cudaMemcpy({d[0]}, x, len * sizeof(double), cudaMemcpyHostToDevice)')}\n"
                f"    {wrap(f'cudaMemcpy({d[0]} + len, y, len * sizeof(double), cudaMemcpyHostToDevice)')}\n"
                f"    grade2_gpu_dev({d[0]}, {d[0]} + len, {d[0]} + 2 * len, a, b, c, n);\n"
                f"    {wrap(f'cudaMemcpy(z, {d[0]} + 2 * len, len * sizeof(double), cudaMemcpyDeviceToHost)')}\n"
                f"    {wrap(f'cudaFree({d[0]})')}\n}}\n")
    parts = [kern, dev, host]
    if rnd.random() < 0.3:
        parts.reverse()
        parts.insert(0, f"__global__ void {k}();\n")
    return ('#include "lab6.h"\n\n#include <cuda_runtime.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n'
            + macro + "\n".join(parts))


def matmul_cpu(rnd):
    i, j, k, s = pick(rnd), pick(rnd), pick(rnd), pick(rnd)
    while len({i, j, k, s}) < 4:
        i, j, k, s = pick(rnd), pick(rnd), pick(rnd), pick(rnd)
    form = rnd.randrange(4)
    head = "void matmul_cpu(const float *A, const float *B, float *C, int32_t n)\n{\n"
    if form == 0:
        return ('#include "lab6.h"\n#include <cblas.h>\n\n' + head + "    cblas_sgemm(CblasRowMajor, "
                "CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);\n}\n")
    if form == 1:
        body = (f"    for (int {i} = 0; {i} < n; {i}++)\n        for (int {j} = 0; {j} < n; {j}++) {{\n"
                f"            float {s} = 0;\n            for (int {k} = 0; {k} < n; {k}++)\n"
                f"                {s} += A[{i} * n + {k}] * B[{k} * n + {j}];\n            C[{i} * n + {j}] = {s};\n        }}\n")
    elif form == 2:
        body = (f"    for (int {i} = 0; {i} < n * n; {i}++) C[{i}] = 0.0f;\n"
                f"    for (int {i} = 0; {i} < n; {i}++)\n        for (int {k} = 0; {k} < n; {k}++) {{\n"
                f"            float {s} = A[(size_t){i} * n + {k}];\n            for (int {j} = 0; {j} < n; {j}++)\n"
                f"                C[(size_t){i} * n + {j}] += {s} * B[(size_t){k} * n + {j}];\n        }}\n")
    else:
        t = rnd.choice([32, 64])
        body = (f"    for (size_t {i} = 0; {i} < (size_t)n * n; ++{i}) C[{i}] = 0;\n"
                f"    for (int {s} = 0; {s} < n; {s} += {t})\n      for (int {i} = 0; {i} < n; {i}++)\n"
                f"        for (int {k} = {s}; {k} < n && {k} < {s} + {t}; {k}++)\n"
                f"          for (int {j} = 0; {j} < n; {j}++)\n            C[{i} * n + {j}] += A[{i} * n + {k}] * B[{k} * n + {j}];\n")
    return '#include "lab6.h"\n\n' + head + body + "}\n"


def matmul_gpu(rnd):
    form = rnd.randrange(3)
    k, r, c, acc = pick(rnd), pick(rnd), pick(rnd, ("n",)), pick(rnd)
    while len({r, c, acc}) < 3:
        r, c, acc = pick(rnd), pick(rnd, ("n",)), pick(rnd)
    head = '#include "lab6.h"\n\n#include <cuda_runtime.h>\n'
    if form == 0:
        dev = ("#include <cublas_v2.h>\n\nstatic cublasHandle_t h;\nvoid matmul_gpu_dev(const float *A, const float *B, float *C, int32_t n)\n{\n"
               "    const float one = 1.0f, zero = 0.0f;\n    if (!h) cublasCreate(&h);\n"
               "    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);\n}\n")
    elif form == 1:
        bx, by = rnd.choice([(16, 16), (32, 8), (32, 32), (8, 8)])
        index = rnd.choice([f"    int {r} = blockIdx.y * blockDim.y + threadIdx.y;\n    int {c} = blockIdx.x * blockDim.x + threadIdx.x;\n",
                            f"    int {c} = threadIdx.x + blockIdx.x * blockDim.x;\n    int {r} = threadIdx.y + blockIdx.y * blockDim.y;\n",
                            f"    unsigned {r} = blockIdx.y * blockDim.y + threadIdx.y, {c} = blockIdx.x * blockDim.x + threadIdx.x;\n"])
        guard = rnd.choice([f"    if ({r} < n && {c} < n) {{\n", f"    if ({c} < n && {r} < n) {{\n",
                            f"    if (!({r} >= n || {c} >= n)) {{\n"])
        body = rnd.choice([f"        for (int q = 0; q < n; ++q)\n            {acc} += A[{r} * n + q] * B[q * n + {c}];\n",
                           f"        for (int q = 0; q < n; q++) {{\n            float prod = A[{r} * n + q] * B[q * n + {c}];\n            {acc} += prod;\n        }}\n",
                           f"        const float *arow = A + {r} * n;\n        for (int q = 0; q < n; q++)\n            {acc} += arow[q] * B[{c} + q * n];\n"])
        dev = (f"\n__global__ void {k}(const float *A, const float *B, float *C, int n)\n{{\n"
               + index + guard + f"        float {acc} = 0.0f;\n" + body
               + f"        C[{r} * n + {c}] = {acc};\n    }}\n}}\n\n"
               f"void matmul_gpu_dev(const float *A, const float *B, float *C, int32_t n)\n{{\n"
               f"    dim3 b({bx}, {by}), g((n + {bx - 1}) / {bx}, (n + {by - 1}) / {by});\n    {k}<<<g, b>>>(A, B, C, n);\n}}\n")
    else:
        t = rnd.choice([16, 32])
        shared = rnd.choice(["    __shared__ float sa[TS][TS], sb[TS][TS];\n",
                             "    __shared__ float sa[TS][TS];\n    __shared__ float sb[TS][TS];\n",
                             "    __shared__ float sa[TS][TS + 1], sb[TS][TS + 1];\n"])
        index = rnd.choice([f"    int {r} = blockIdx.y * TS + threadIdx.y, {c} = blockIdx.x * TS + threadIdx.x;\n",
                            f"    int {c} = threadIdx.x + blockIdx.x * blockDim.x;\n    int {r} = threadIdx.y + blockIdx.y * blockDim.y;\n",
                            f"    const int {r} = blockIdx.y * blockDim.y + threadIdx.y;\n    const int {c} = blockIdx.x * blockDim.x + threadIdx.x;\n"])
        load_a = rnd.choice([f"        sa[threadIdx.y][threadIdx.x] = ({r} < n && t0 + threadIdx.x < n) ? A[{r} * n + t0 + threadIdx.x] : 0;\n",
                             f"        if ({r} < n && t0 + threadIdx.x < n)\n            sa[threadIdx.y][threadIdx.x] = A[{r} * n + t0 + threadIdx.x];\n"
                             f"        else\n            sa[threadIdx.y][threadIdx.x] = 0.0f;\n"])
        load_b = rnd.choice([f"        sb[threadIdx.y][threadIdx.x] = ({c} < n && t0 + threadIdx.y < n) ? B[(t0 + threadIdx.y) * n + {c}] : 0;\n",
                             f"        int br = t0 + threadIdx.y;\n        sb[threadIdx.y][threadIdx.x] = br < n && {c} < n ? B[br * n + {c}] : 0.0f;\n"])
        inner = rnd.choice([f"        for (int e = 0; e < TS; e++) {acc} += sa[threadIdx.y][e] * sb[e][threadIdx.x];\n",
                            f"        for (int e = 0; e < TS; ++e) {{\n            {acc} += sa[threadIdx.y][e] * sb[e][threadIdx.x];\n        }}\n",
                            f"        for (int e = 0; e < TS; e += 2)\n            {acc} += sa[threadIdx.y][e] * sb[e][threadIdx.x] + sa[threadIdx.y][e + 1] * sb[e + 1][threadIdx.x];\n"])
        store = rnd.choice([f"    if ({r} < n && {c} < n) C[{r} * n + {c}] = {acc};\n",
                            f"    if ({r} >= n || {c} >= n)\n        return;\n    C[(size_t){r} * n + {c}] = {acc};\n"])
        dev = (f"\n#define TS {t}\n__global__ void {k}(const float *A, const float *B, float *C, int n)\n{{\n"
               + shared + index + f"    float {acc} = 0;\n    for (int t0 = 0; t0 < n; t0 += TS) {{\n" + load_a + load_b
               + "        __syncthreads();\n" + inner + f"        __syncthreads();\n    }}\n" + store + "}\n\n"
               f"void matmul_gpu_dev(const float *A, const float *B, float *C, int32_t n)\n{{\n"
               f"    dim3 b(TS, TS), g((n + TS - 1) / TS, (n + TS - 1) / TS);\n    {k}<<<g, b>>>(A, B, C, n);\n}}\n")
    da, db, dc = pick(rnd), pick(rnd), pick(rnd)
    while len({da, db, dc}) < 3:
        da, db, dc = pick(rnd), pick(rnd), pick(rnd)
    host = (f"\nvoid matmul_gpu(const float *A, const float *B, float *C, int32_t n)\n{{\n"
            f"    size_t sz = (size_t)n * n * sizeof(float);\n    float *{da}, *{db}, *{dc};\n"
            f"    cudaMalloc(&{da}, sz);\n    cudaMalloc(&{db}, sz);\n    cudaMalloc(&{dc}, sz);\n"
            f"    cudaMemcpy({da}, A, sz, cudaMemcpyHostToDevice);\n    cudaMemcpy({db}, B, sz, cudaMemcpyHostToDevice);\n"
            f"    matmul_gpu_dev({da}, {db}, {dc}, n);\n    cudaMemcpy(C, {dc}, sz, cudaMemcpyDeviceToHost);\n"
            f"    cudaFree({da});\n    cudaFree({db});\n    cudaFree({dc});\n}}\n")
    return head + dev + host


def helper(rnd):
    """A function of the student's own (a check, a debug print, an experiment): what makes a
    submission individual, and what a copy carries along."""
    name, v, w = pick(rnd), pick(rnd), pick(rnd, ("n",))
    ops = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"]
    cmps = ["<", ">", "<=", ">=", "==", "!="]

    def statement(depth):
        a, b = rnd.choice([v, w, "n", str(rnd.randrange(2, 90))]), rnd.choice([v, w, "n"])
        form = rnd.randrange(5 if depth > 1 else 9)
        if form == 0:
            return [f"{v} = {a} {rnd.choice(ops)} {b};"]
        if form == 1:
            return [f"{w} {rnd.choice(ops)}= ({a} {rnd.choice(ops)} {b});"]
        if form == 2:
            return [f'printf("{v}=%ld\\n", (long){v});']
        if form == 3:
            return [f"if ({a} {rnd.choice(cmps)} {b})", f"    return {rnd.choice([v, w])};"]
        if form == 4:
            return [f"{w} = {a} ? {b} : {w};"]
        if form == 5:
            return ([f"for (int e = 0; e < {rnd.randrange(2, 9)}; e++) {{"]
                    + ["    " + x for x in statement(depth + 1) + statement(depth + 1)] + ["}"])
        if form == 6:
            return ([f"if ({a} {rnd.choice(cmps)} {b}) {{"] + ["    " + x for x in statement(depth + 1)]
                    + ["} else {"] + ["    " + x for x in statement(depth + 1)] + ["}"])
        if form == 7:
            return ([f"while ({v} > {rnd.randrange(1, 6)}) {{", f"    {v} /= 2;"]
                    + ["    " + x for x in statement(depth + 1)] + ["}"])
        return [f"{v} = check_{rnd.randrange(9)}({a}, {b}) + {rnd.randrange(100)};"]

    lines = []
    for _ in range(rnd.randrange(4, 9)):
        lines += statement(0)
    return (f"static long {name}_{rnd.randrange(100)}(long n)\n{{\n    long {v} = n, {w} = 1;\n"
            + "\n".join("    " + x for x in lines) + f"\n    return {v} + {w};\n}}\n")


def vary(text, rnd):
    """The small choices an honest student makes without thinking: i++, ++i or i += 1;
    s += e or s = s + e; int, long or unsigned for a local. Students who took the same
    approach still differ every few statements, as real ones do."""
    text = re.sub(r"(\w+)\+\+\)", lambda m: rnd.choice(
        [m.group(0), f"++{m.group(1)})", f"{m.group(1)} += 1)", f"{m.group(1)} = {m.group(1)} + 1)"]), text)
    text = re.sub(r"(?<=[ (])(\w+) \+= ", lambda m: rnd.choice(
        [m.group(0), f"{m.group(1)} = {m.group(1)} + "]), text)
    return re.sub(r"(?<=[ (])int (?=\w+ = )", lambda m: rnd.choice(["int ", "int ", "long ", "unsigned "]), text)


GENERATORS = {"grade2_cpu.c": grade2_cpu, "grade2_gpu.cu": grade2_gpu,
              "matmul_cpu.c": matmul_cpu, "matmul_gpu.cu": matmul_gpu}
KEEP = {"x", "y", "z", "a", "b", "c", "n", "A", "B", "C"}


def disguise(text, rnd):
    """The copier's edits: every name of the submission's own renamed, comments rewritten."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: rnd.choice(COMMENTS), text, flags=re.S)
    mapping = {}
    def rename(m):
        w = m.group(0)
        if w not in NAMES and not re.fullmatch(r"(%s)[12_x]?" % "|".join(NAMES), w):
            return w
        if w in KEEP:
            return w
        mapping.setdefault(w, "v%d_%s" % (len(mapping), rnd.choice(["a", "b", "c"])))
        return mapping[w]
    return re.sub(r"(?<![.\w])[A-Za-z_]\w*", rename, text)


def copies(out, n):
    """N copies of labs/lab6/solution, disguised as generate.py's leak classes are: a solution
    that leaked and spread through the class."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "../fixtures/similarity/corpus"))
    import generate
    log = []
    generate.disguised_copies("lab6", os.path.join(out, "class"), n, log, "s%04d")
    with open(os.path.join(out, "copies.txt"), "w") as f:
        f.write("\n".join(log) + "\n")


def main():
    if sys.argv[1] == "--copies":
        copies(sys.argv[2], int(sys.argv[3]))
        return
    out, n = sys.argv[1], int(sys.argv[2])
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    rnd = random.Random(6)
    header = open(os.path.join(os.path.dirname(__file__), "../../labs/lab6/skeleton/lab6.h")).read()
    subs = []
    for s in range(n - pairs):
        sub = {f: vary(g(rnd), rnd) for f, g in GENERATORS.items()}
        for f in rnd.sample(sorted(sub), 3):
            sub[f] += "\n" + helper(rnd)
        subs.append(("s%04d" % s, sub))
    planted = []
    for p in range(pairs):
        src_id, src = subs[rnd.randrange(len(subs))]
        copy_id = "c%04d" % p
        subs.append((copy_id, {f: disguise(t, rnd) for f, t in src.items()}))
        planted.append((src_id, copy_id))
    for sid, files in subs:
        d = os.path.join(out, "class", sid)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "lab6.h"), "w") as f:
            f.write(header)
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
    with open(os.path.join(out, "planted.txt"), "w") as f:
        for a, b in planted:
            f.write("%s %s\n" % (a, b))


if __name__ == "__main__":
    main()
