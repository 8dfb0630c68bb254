"""What the test modules share: helpers and positions that more than one test module uses live
here, so that no test module imports from another."""
