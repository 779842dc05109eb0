"""Prints more than a model should read: 5,000 numbered lines."""

for number in range(5000):
    print(f"line {number:05d} of the output")
