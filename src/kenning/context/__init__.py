"""What a session is given: the start brief, the task card, prompt notes and the memory index."""
