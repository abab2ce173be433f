"""``bcs.fit``'s result: one power per column, its inference, transforms, report and plots."""
