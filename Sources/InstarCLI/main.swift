print("instar")
