"""The program agent: PERCEIVE → PLAN → BUILD → VALIDATE → OUTPUT over a knowledge pack."""
