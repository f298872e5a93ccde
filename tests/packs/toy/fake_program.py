"""A stand-in program for tests of the agent machinery (not of any science)."""

import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    command = argv[0]
    if command == "inspect":
        text = Path(argv[1]).read_text()
        labels = argv[argv.index("--labels") + 1] if "--labels" in argv else None
        if "NOSYMMETRY" in text:
            print("Reading reflections...")
            print("Sorry: Cell and/or symmetry not specified in reflection file")
            return 1
        if "AMBIGUOUS" in text and (labels is None or "ALWAYS" in text):
            print("Multiple equally suitable arrays of observed xray data found.\n")
            print("Possible choices:")
            print("  data.dat:I(+),SIGI(+),I(-),SIGI(-)\n  data.dat:IMEAN,SIGIMEAN\n")
            print("Please use obs_labels to specify an unambiguous substring of the target label.")
            return 1
        print(f"resolution: {text.split()[0]}")
        if labels:
            print(f"using labels {labels}")
        return 0
    if command == "refine":
        model, _data, out = argv[1:4]
        if "--sleep" in argv:
            time.sleep(float(argv[argv.index("--sleep") + 1]))
        r_free = float(Path(model).read_text().split()[0])
        new = round(r_free * 0.8, 4)
        for step in range(3):
            print(f"cycle {step} R-free: {r_free + (new - r_free) * (step + 1) / 3:.4f}")
        Path(out).write_text(f"{new}\n")
        return 0
    if command == "validate":
        print("outliers: 2")
        return 0
    print(f"FAILED: unknown command {command}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
