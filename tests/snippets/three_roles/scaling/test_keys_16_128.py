"""Why divide by √d_k, the claim's test with 16 and 128 keys (C05): what the page claims,
asserted on the snippet's run."""


def test_planted_growth_reads_as_the_square_root_of_d_k(results):
    r = results("three_roles.scaling.keys_16_128")
    # The power check multiplies the divided gradient by sqrt(1024) = 32 and runs the same
    # ratio: it must read exactly 32 at both key counts, whatever the draw.
    for n_keys in (16, 128):
        assert abs(r.number(f"planted_explosion_ratio_keys{n_keys}") - 32) < 1e-9
