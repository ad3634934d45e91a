"""Sharing: x1 = x0*x0, x2 = x1*x1, ... N levels, each value used twice.

A naive backpropagator (one closure per use) is exponential in N here; the
YOLO pipeline must stay linear. Runs `opt -passes=ad` on the chain for N and
2N and checks that the derivative code doubles (not squares) and that each
run stays well under a second. Prints one verdict line for FileCheck.
Usage: sharing.py OPT PLUGIN N
"""
import subprocess
import sys
import time


def chain(n):
    body = ["define double @f(double %x0) {"]
    for k in range(n):
        # Scale to keep values finite: x_{k+1} = x_k * x_k * 0.5
        body.append(f"  %s{k} = fmul double %x{k}, %x{k}")
        body.append(f"  %x{k + 1} = fmul double %s{k}, 5.000000e-01")
    body.append(f"  ret double %x{n}")
    body.append("}")
    return "\n".join(["declare double @__ad_gradient(ptr, ...)"] + body + [
        "define double @grad(double %x) {",
        "  %g = call double (ptr, ...) @__ad_gradient(ptr @f, double %x)",
        "  ret double %g",
        "}"]) + "\n"


def measure(opt, plugin, n):
    start = time.monotonic()
    out = subprocess.run(
        [opt, "-load-pass-plugin=" + plugin, "-passes=ad", "-S", "-"],
        input=chain(n), capture_output=True, text=True, check=True).stdout
    seconds = time.monotonic() - start
    in_rev, count = False, 0
    for line in out.splitlines():
        if line.startswith("define") and "@f.rev" in line:
            in_rev = True
        elif in_rev and line.startswith("}"):
            in_rev = False
        elif in_rev and line.startswith("  "):
            count += 1
    return count, seconds


def main():
    opt, plugin, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    small, t_small = measure(opt, plugin, n)
    large, t_large = measure(opt, plugin, 2 * n)
    ratio = large / small
    print(f"N={n}: f.rev has {small} instructions ({t_small:.2f}s); "
          f"N={2 * n}: {large} ({t_large:.2f}s); ratio {ratio:.2f}")
    linear = 1.8 <= ratio <= 2.2
    fast = max(t_small, t_large) < 1.0
    print("sharing: " + ("linear and fast" if linear and fast else
                         "NOT LINEAR" if not linear else "TOO SLOW"))


if __name__ == "__main__":
    main()
