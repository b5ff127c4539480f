"""Discord components and messages: custom ids, dynamic buttons and selects, view and message
builders, the click handlers, and the helpers that answer interactions in time."""
