"""The reviewer's queue: a lazy table of distinct outputs, its filters, keys and the detail panel."""
