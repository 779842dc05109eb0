#!/usr/bin/env python3
"""Place a kernel on the roofline: arithmetic intensity, the ridge point, whether it is memory- or
compute-bound, the attainable throughput and the shortest possible time; with a measured time,
the achieved throughput as a fraction of the roofline.

Give the work as --flops and --bytes, or derive it: --matmul M N K (2*M*N*K flops; A, B and C
moved once) or --elementwise N (N elements, --inputs reads and --outputs writes each, --ops flops
per element). The machine is --peak-tflops (for the dtype and unit used, e.g. tensor cores) and
--bandwidth-gbs (memory bandwidth). Pure arithmetic: no project commands, no GPU needed.
"""

from __future__ import annotations

import argparse
import sys


def work(arguments: argparse.Namespace) -> tuple[float, float]:
    """(flops, bytes) the kernel must do and move at least."""
    size = arguments.dtype_bytes
    if arguments.matmul:
        m, n, k = arguments.matmul
        return 2.0 * m * n * k, float(size * (m * k + k * n + m * n))
    if arguments.elementwise:
        n = arguments.elementwise
        moved = size * n * (arguments.inputs + arguments.outputs)
        return float(n * arguments.ops), float(moved)
    if arguments.flops is None or arguments.bytes is None:
        raise SystemExit("give --flops and --bytes, or --matmul M N K, or --elementwise N")
    return arguments.flops, arguments.bytes


def roofline(flops: float, moved: float, peak_tflops: float, bandwidth_gbs: float) -> dict:
    peak, bandwidth = peak_tflops * 1e12, bandwidth_gbs * 1e9
    intensity = flops / moved
    ridge = peak / bandwidth
    attainable = min(peak, intensity * bandwidth)
    return {
        "intensity": intensity,
        "ridge": ridge,
        "bound": "memory" if intensity < ridge else "compute",
        "attainable": attainable,
        "seconds": flops / attainable,
    }


def report(flops: float, moved: float, point: dict, measured: float | None) -> list[str]:
    side = "below" if point["bound"] == "memory" else "at or above"
    lines = [
        f"work:        {flops:.3e} FLOP, {moved:.3e} bytes",
        f"intensity:   {point['intensity']:.2f} FLOP/byte",
        f"ridge point: {point['ridge']:.2f} FLOP/byte",
        f"bound:       {point['bound']} (intensity {side} the ridge point)",
        f"roofline:    {point['attainable'] / 1e12:.3f} TFLOP/s attainable, "
        f"at least {point['seconds'] * 1e6:.3f} us",
    ]
    if measured is not None:
        achieved = flops / measured
        lines.append(
            f"measured:    {measured * 1e6:.3f} us = {achieved / 1e12:.3f} TFLOP/s, "
            f"{100 * achieved / point['attainable']:.1f} % of the roofline"
        )
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    given = parser.add_argument_group("work")
    given.add_argument("--flops", type=float, help="floating-point operations")
    given.add_argument("--bytes", type=float, help="bytes moved to and from memory")
    given.add_argument("--matmul", type=int, nargs=3, metavar=("M", "N", "K"))
    given.add_argument("--elementwise", type=int, metavar="N", help="number of elements")
    given.add_argument("--inputs", type=int, default=2, help="elementwise: reads per element")
    given.add_argument("--outputs", type=int, default=1, help="elementwise: writes per element")
    given.add_argument("--ops", type=int, default=1, help="elementwise: flops per element")
    given.add_argument("--dtype-bytes", type=int, default=4, help="bytes per element (default 4)")
    machine = parser.add_argument_group("machine")
    machine.add_argument("--peak-tflops", type=float, required=True, help="peak TFLOP/s")
    machine.add_argument("--bandwidth-gbs", type=float, required=True, help="memory GB/s")
    measured = parser.add_mutually_exclusive_group()
    measured.add_argument("--seconds", type=float, help="measured time in seconds")
    measured.add_argument("--ms", type=float, help="measured time in milliseconds")
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    flops, moved = work(arguments)
    if flops <= 0 or moved <= 0:
        raise SystemExit("the work must be positive: flops and bytes above 0")
    point = roofline(flops, moved, arguments.peak_tflops, arguments.bandwidth_gbs)
    measured = arguments.seconds if arguments.ms is None else arguments.ms / 1e3
    if measured is not None and measured <= 0:
        raise SystemExit(f"the measured time must be above 0, got {measured} s")
    print("\n".join(report(flops, moved, point, measured)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
